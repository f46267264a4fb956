/*
 * job.h - a piece of work that may run on a second thread: started where
 * its inputs are ready, finished where its result is needed. Work too
 * small to pay for a thread, or whose thread cannot be started, runs
 * inline at nns__job_finish instead, so the caller reads the same result
 * either way and never has a failure of its own to handle.
 *
 *     nns__job j;
 *     nns__job_start(&j, walk, &state, n >= THREAD_MIN);
 *     ... other work, which must not touch what walk writes ...
 *     nns__job_finish(&j);   // or nns__job_cancel: on every path
 *
 * The caller keeps what `run` reads unchanged until the finish. The
 * caller's own callbacks are never called from a job: a job must not call
 * anything that may (custom-op rules, the error or warning sinks).
 */
#ifndef NNS_JOB_H
#define NNS_JOB_H

#include <pthread.h>
#include <stdbool.h>

/* Work on fewer items (nodes, values, rows) than this stays on the calling
 * thread: a thread's start would cost more than it saves. A fuzzing build
 * starts a thread for anything, so that the fuzzers reach those paths. */
#ifdef NNS_FUZZING
#define NNS__JOB_MIN_ITEMS 2
#else
#define NNS__JOB_MIN_ITEMS 4096
#endif

typedef struct nns__job {
  void (*run)(void *arg);
  void *arg;
  pthread_t thread;
  bool threaded; /* run is running (or ran) on `thread` */
  bool finished; /* nns__job_finish has returned */
} nns__job;

/* Starts run(arg) on a thread of its own when `thread` is true and one
 * can be started; otherwise it waits for nns__job_finish. */
void nns__job_start(nns__job *j, void (*run)(void *), void *arg, bool thread);
/* Returns once run(arg) has returned: joins its thread, or runs it here.
 * Again on a finished job, or on a zeroed one never started, returns at
 * once. */
void nns__job_finish(nns__job *j);
/* For a caller that no longer wants the result (an error path): returns
 * once run is not running, joining its thread, or making sure that an
 * inline job never runs. The caller frees what run made, if it ran. */
void nns__job_cancel(nns__job *j);

#endif
