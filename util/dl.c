/* util/dl.c: loading a shared library's entry points at run time (util/dl.h). */
#include "util/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *srt_dl_load(const char *soname, const struct srt_dl_sym *syms, size_t n, void *api,
		  const char *why, const char *install, char *errbuf, size_t errlen)
{
	/*
	 * RTLD_NODELETE: srt_dl_unload() drops the reference but the library stays
	 * mapped until exit.  These libraries (and the TLS and crypto libraries
	 * they pull in) keep thread-local storage; unmapping it leaves stale
	 * pointers in the threads' TLS vectors, which LeakSanitizer's exit scan
	 * followed into a crash (seen once in CI after a failed --listen).
	 */
	void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

	if (!handle) {
		snprintf(errbuf, errlen,
			 "cannot load %s, which srtctl needs %s (%s); install it (%s)", soname, why,
			 dlerror(), install);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(handle, syms[i].name);

		if (!p) {
			snprintf(errbuf, errlen, "%s has no %s; %s", soname, syms[i].name, install);
			dlclose(handle);
			return NULL;
		}
		/* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
		memcpy((char *)api + syms[i].offset, &p, sizeof(p));
	}
	return handle;
}

void srt_dl_unload(void *handle)
{
	if (handle)
		dlclose(handle);
}
