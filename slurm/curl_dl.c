/* slurm/curl_dl.c: resolving libcurl's entry points at run time. */
#include "slurm/curl_dl.h"

#include <string.h>

#include "util/dl.h"

#define SRT_LIBCURL "libcurl.so.4"

int srt_curl_load(struct srt_curl_api *api, char *errbuf, size_t n)
{
#define SYM(f)                                               \
	{                                                    \
		"curl_" #f, offsetof(struct srt_curl_api, f) \
	}
	static const struct srt_dl_sym syms[] = {
		SYM(global_init),  SYM(global_cleanup), SYM(easy_init),	   SYM(easy_cleanup),
		SYM(easy_setopt),  SYM(easy_getinfo),	SYM(easy_perform), SYM(easy_strerror),
		SYM(slist_append), SYM(slist_free_all),
	};
#undef SYM

	memset(api, 0, sizeof(*api));
	api->handle = srt_dl_load(SRT_LIBCURL, syms, sizeof(syms) / sizeof(syms[0]), api,
				  "to talk to slurmrestd",
				  "Debian: apt-get install libcurl4; libcurl 7.40 or newer", errbuf,
				  n);
	return api->handle ? 0 : -1;
}

void srt_curl_unload(struct srt_curl_api *api)
{
	srt_dl_unload(api->handle);
	memset(api, 0, sizeof(*api));
}
