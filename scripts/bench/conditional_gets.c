/* What an unchanged run's fetching costs by itself: libcurl's multi
 * interface, nothing else (no subscription list, state, timeline or
 * output), sending each URL's conditional GET with the validators a
 * feedmerge state stored, at feedmerge's default concurrency (32
 * transfers, 4 per host, idle connections kept for the next feed of a
 * host). bench_scale.py builds it with the system C compiler and prints
 * its time beside the unchanged second run's: the floor that run stands on.
 *
 *     conditional_gets < LINES       LINES: URL TAB ETAG TAB LAST-MODIFIED
 *
 * Prints "N requests, M not modified" on stderr; exits 1 unless every
 * request was answered (a benchmark that lost requests would look fast).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { JOBS = 32, PER_HOST = 4 };

struct request {
    char *url;
    struct curl_slist *headers;
};

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    (void)user;
    return size * count;
}

/* The next line's fields, split in place at tabs; 0 at the end of input. */
static int read_request(char *line, size_t size, struct request *out) {
    if (!fgets(line, (int)size, stdin)) return 0;
    line[strcspn(line, "\r\n")] = 0;
    char *etag = strchr(line, '\t');
    char *modified = etag ? strchr(etag + 1, '\t') : NULL;
    if (etag) *etag++ = 0;
    if (modified) *modified++ = 0;
    out->url = strdup(line);
    out->headers = NULL;
    char header[4200];
    if (etag && *etag) {
        snprintf(header, sizeof header, "If-None-Match: %s", etag);
        out->headers = curl_slist_append(out->headers, header);
    }
    if (modified && *modified) {
        snprintf(header, sizeof header, "If-Modified-Since: %s", modified);
        out->headers = curl_slist_append(out->headers, header);
    }
    return 1;
}

int main(void) {
    size_t capacity = 1024, count = 0;
    struct request *requests = malloc(capacity * sizeof *requests);
    char line[8192];
    curl_global_init(CURL_GLOBAL_ALL);
    while (read_request(line, sizeof line, &requests[count])) {
        if (++count == capacity) requests = realloc(requests, (capacity *= 2) * sizeof *requests);
    }
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)JOBS);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)PER_HOST);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 1024L);
    size_t next = 0, done = 0, answered = 0, notModified = 0;
    int inFlight = 0;
    while (done < count) {
        while (next < count && inFlight < JOBS) {
            CURL *easy = curl_easy_init();
            curl_easy_setopt(easy, CURLOPT_URL, requests[next].url);
            curl_easy_setopt(easy, CURLOPT_HTTPHEADER, requests[next].headers);
            curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
            curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
            curl_multi_add_handle(multi, easy);
            next++;
            inFlight++;
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            long status = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status > 0) answered++;
            if (status == 304) notModified++;
            curl_multi_remove_handle(multi, message->easy_handle);
            curl_easy_cleanup(message->easy_handle);
            inFlight--;
            done++;
        }
        if (running) curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    fprintf(stderr, "%zu requests, %zu not modified\n", count, notModified);
    return answered == count ? 0 : 1;
}
