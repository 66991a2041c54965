/* slurm/curl_dl.c: resolving libcurl's entry points at run time. */
#include "slurm/curl_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define SRT_LIBCURL "libcurl.so.4"

int srt_curl_load(struct srt_curl_api *api, char *errbuf, size_t n)
{
	static const struct {
		const char *name;
		size_t offset;
	} syms[] = {
		{ "curl_global_init", offsetof(struct srt_curl_api, global_init) },
		{ "curl_global_cleanup", offsetof(struct srt_curl_api, global_cleanup) },
		{ "curl_easy_init", offsetof(struct srt_curl_api, easy_init) },
		{ "curl_easy_cleanup", offsetof(struct srt_curl_api, easy_cleanup) },
		{ "curl_easy_setopt", offsetof(struct srt_curl_api, easy_setopt) },
		{ "curl_easy_getinfo", offsetof(struct srt_curl_api, easy_getinfo) },
		{ "curl_easy_perform", offsetof(struct srt_curl_api, easy_perform) },
		{ "curl_easy_strerror", offsetof(struct srt_curl_api, easy_strerror) },
		{ "curl_slist_append", offsetof(struct srt_curl_api, slist_append) },
		{ "curl_slist_free_all", offsetof(struct srt_curl_api, slist_free_all) },
	};

	memset(api, 0, sizeof(*api));
	api->handle = dlopen(SRT_LIBCURL, RTLD_NOW | RTLD_LOCAL);
	if (!api->handle) {
		snprintf(errbuf, n,
			 "cannot load %s, which srtctl needs to talk to slurmrestd (%s); install "
			 "it (Debian: apt-get install libcurl4)",
			 SRT_LIBCURL, dlerror());
		return -1;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(api->handle, syms[i].name);

		if (!p) {
			snprintf(errbuf, n, "%s has no %s; is it libcurl 7.40 or newer?", SRT_LIBCURL,
				 syms[i].name);
			srt_curl_unload(api);
			return -1;
		}
		/* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
		memcpy((char *)api + syms[i].offset, &p, sizeof(p));
	}
	return 0;
}

void srt_curl_unload(struct srt_curl_api *api)
{
	if (api->handle)
		dlclose(api->handle);
	memset(api, 0, sizeof(*api));
}
