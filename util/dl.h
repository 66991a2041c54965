/*
 * util/dl.h: loading a shared library's entry points at run time.
 *
 * srtctl loads the libraries only some verbs need (libcurl for slurmrestd,
 * libmicrohttpd for `controller --listen`, libsystemd under a systemd unit)
 * with dlopen() instead of linking them: each pulls in TLS, compression and
 * crypto libraries that every process would otherwise pay for at start-up
 * (bench/dryrun.sh measured 2.4 ms and 3.6 MiB for libmicrohttpd and
 * libsystemd together), on compute nodes as much as on the login node.
 *
 * A caller describes its API as a struct of function pointers and a table
 * of (symbol, offset in that struct); srt_dl_load() opens the library and
 * fills every pointer, or none.  Each caller holds its own handle (dlopen
 * reference-counts), so there is no process-wide state.
 */
#ifndef SRT_UTIL_DL_H
#define SRT_UTIL_DL_H

#include <stddef.h>

struct srt_dl_sym {
	const char *name; /* the symbol */
	size_t offset;	  /* where its function pointer goes in the caller's struct */
};

/*
 * dlopen(`soname`) and resolve each of syms[0..n) into `api` at its offset.
 * Returns the handle, or NULL with errbuf set to "cannot load SONAME, which
 * srtctl needs <why> (<dlerror>); install it (<install>)", or to
 * "SONAME has no SYMBOL; <install>" when a symbol is missing (the library
 * is then closed again).
 */
void *srt_dl_load(const char *soname, const struct srt_dl_sym *syms, size_t n, void *api,
		  const char *why, const char *install, char *errbuf, size_t errlen);

/* dlclose(handle) when it is not NULL (the library stays mapped: RTLD_NODELETE). */
void srt_dl_unload(void *handle);

#endif
