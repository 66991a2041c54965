/*
 * slurm/curl_dl.h: libcurl, loaded when a SLURM client is made.
 *
 * srtctl links libcurl at run time with dlopen(): libcurl pulls in some
 * thirty libraries (TLS, Kerberos, LDAP, ...) that every verb would
 * otherwise pay for at start-up (about 5 ms and 6 MB of RSS), while only the
 * verbs that talk to slurmrestd need it.  Each client holds its own handle
 * (dlopen reference-counts), so there is no process-wide state.
 */
#ifndef SRT_SLURM_CURL_DL_H
#define SRT_SLURM_CURL_DL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stddef.h>

struct srt_curl_api {
	void *handle; /* from dlopen() */
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *c);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *c);
	const char *(*easy_strerror)(CURLcode cc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
};

/*
 * Load libcurl (libcurl.so.4) into *api.  Returns 0, or -1 with a message in
 * errbuf saying which library could not be loaded and how to get it.
 */
int srt_curl_load(struct srt_curl_api *api, char *errbuf, size_t n);
/* Drop the reference taken by srt_curl_load(); *api is zeroed. */
void srt_curl_unload(struct srt_curl_api *api);

#endif
