/*
 * glibc's malloc keeps memory that was freed amid blocks still in use: it stays resident until
 * malloc_trim() hands its whole free pages back with madvise. Node never calls it, so after thousands
 * of device sessions close the process keeps their native memory (docs/operations.md#memory). This
 * addon exposes two calls, nothing else: how many bytes the allocator holds free, and the trim (a
 * promise: it runs off the event loop).
 * Built by core/native/build.js at install; where it cannot be built (no compiler, not glibc) the
 * service runs without it and says so once in its log.
 */
#include <malloc.h>
#include <stdlib.h>
#include <node_api.h>

static napi_value free_bytes(napi_env env, napi_callback_info info) {
  (void)info;
  struct mallinfo2 m = mallinfo2();
  napi_value result;
  napi_create_double(env, (double)m.fordblks, &result);
  return result;
}

/* The trim runs on a libuv worker thread: with thousands of free chunks it takes tens to hundreds of
 * milliseconds of madvise calls, which must not stall the event loop. */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int released;
} trim_job;

static void trim_execute(napi_env env, void *data) {
  (void)env;
  ((trim_job *)data)->released = malloc_trim(0);
}

static void trim_complete(napi_env env, napi_status status, void *data) {
  trim_job *job = data;
  napi_value result;
  napi_get_boolean(env, status == napi_ok && job->released == 1, &result);
  napi_resolve_deferred(env, job->deferred, result);
  napi_delete_async_work(env, job->work);
  free(job);
}

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value promise, name;
  trim_job *job = calloc(1, sizeof *job);
  napi_create_promise(env, &job->deferred, &promise);
  napi_create_string_utf8(env, "malloc_trim", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, trim_execute, trim_complete, job, &job->work);
  napi_queue_async_work(env, job->work);
  return promise;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "freeBytes", NAPI_AUTO_LENGTH, free_bytes, NULL, &fn);
  napi_set_named_property(env, exports, "freeBytes", fn);
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  return exports;
}
