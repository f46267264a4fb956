/*
 * rf_period.h - receptive fields that differ between positions (see
 * nns__rf_per): what windowed attention, the rolls around it and the
 * slices of a patch merging do to them, exactly, position by position
 * within one period. A field whose period would pass NNS__RF_PERIOD_MAX
 * falls back on its envelope, the smallest field that is the same for
 * every position and holds each position's (never smaller than the truth).
 */
#ifndef NNS_OPS_RF_PERIOD_H
#define NNS_OPS_RF_PERIOD_H

#include "op.h"

/* The period of axis k's field (1: the same everywhere). */
int32_t nns__rf_period(const nns__rf_pool *pool, const nns__rf *r, int k);

/* The pixels position i reads along axis k, relative to stride*i. */
void nns__rf_offsets(const nns__rf_pool *pool, const nns__rf *r, int k,
                     int64_t i, int64_t *lo, int64_t *hi);

/* Every axis made the same for all positions (its envelope). */
void nns__rf_envelope(nns__rf_pool *pool, nns__rf *r);

/* Position i takes what position i + t read (a roll, a crop, a pad). */
void nns__rf_translate(nns__rf_pool *pool, nns__rf *r, int k, int64_t t);

/* Position i takes what position start + step*i read (a strided slice). */
void nns__rf_resample(nns__rf_pool *pool, nns__rf *r, int k, int64_t start,
                      int64_t step);

/* Each position takes everything its window of w positions read: windows
 * [m*w, (m+1)*w) (Swin's attention within a window). */
void nns__rf_window(nns__rf_pool *pool, nns__rf *r, int k, int64_t w);

/* Axis k of acc reads, at each position, also what b's axis k reads
 * there (a merge: Add, Concat along another dim). */
void nns__rf_unite_axis(nns__rf_pool *pool, nns__rf *acc, const nns__rf *b,
                        int k);

/* Frees the pool's storage. */
void nns__rf_pool_free(nns__rf_pool *pool);

#endif
