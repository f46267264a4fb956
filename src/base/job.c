/*
 * job.c - work on a second thread, or inline (job.h).
 */
#include "job.h"

static void *job_thread(void *p) {
  nns__job *j = p;
  j->run(j->arg);
  return NULL;
}

void nns__job_start(nns__job *j, void (*run)(void *), void *arg, bool thread) {
  *j = (nns__job){.run = run, .arg = arg};
  j->threaded = thread && pthread_create(&j->thread, NULL, job_thread, j) == 0;
}

void nns__job_finish(nns__job *j) {
  if (j->finished || !j->run) /* done, or never started (zeroed) */
    return;
  if (j->threaded)
    pthread_join(j->thread, NULL);
  else
    j->run(j->arg);
  j->finished = true;
}

void nns__job_cancel(nns__job *j) {
  if (j->threaded && !j->finished)
    pthread_join(j->thread, NULL);
  j->finished = true;
}
