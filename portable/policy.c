/* Validation and fitting of team policies against a space's limits. */
#include "portable/tp_error.h"
#include "portable/tp_policy.h"

static int tp_is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

void tp_team_policy_fit(const tp_space *space, tp_team_policy *policy) {
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS)
    return;
  if (!info.is_gpu) {
    policy->team_size = 1;
    policy->vector_length = 1;
    return;
  }
  if (policy->vector_length > info.max_vector_length)
    policy->vector_length = info.max_vector_length;
  if (policy->vector_length < 1)
    policy->vector_length = 1;
  int max_team = info.max_team_threads / policy->vector_length;
  if (policy->team_size > max_team)
    policy->team_size = max_team;
  if (policy->team_size < 1)
    policy->team_size = 1;
}

tp_status tp_team_policy_check(const tp_space *space, const tp_team_policy *p,
                               const char *kernel_name) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  if (p->league_size < 0)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "kernel %s: league size %lld is negative",
                    kernel_name, (long long)p->league_size);
  if (p->team_size < 1)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "kernel %s: team size %d must be at least 1",
                    kernel_name, p->team_size);
  /* CPU backends run any valid policy as teams of one thread with one lane. */
  int max_vector = info.is_gpu ? info.max_vector_length : TP_MAX_VECTOR_LENGTH;
  if (!tp_is_power_of_two(p->vector_length) || p->vector_length > max_vector)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "kernel %s: vector length %d must be a power of two up to %d", kernel_name,
                    p->vector_length, max_vector);
  int max_threads = info.is_gpu ? info.max_team_threads : TP_MAX_TEAM_THREADS;
  if ((int64_t)p->team_size * p->vector_length > max_threads)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "kernel %s: team of %d x %d threads exceeds the limit of %d", kernel_name,
                    p->team_size, p->vector_length, max_threads);
  size_t scratch_limit = tp_team_scratch_limit(space, p->team_size);
  if (p->scratch_bytes > scratch_limit)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "kernel %s: %zu bytes of team scratch exceed the limit of %zu for teams of "
                    "%d threads",
                    kernel_name, p->scratch_bytes, scratch_limit, p->team_size);
  return TP_SUCCESS;
}
