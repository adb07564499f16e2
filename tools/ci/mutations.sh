#!/usr/bin/env bash
# Checks that the suites run on the hip backend built on the HIP CPU runtime catch a
# kernel that is wrong only on a GPU: each mutation below deletes a team barrier or a
# team/vector reduction from one kernel (the README's example kernel and one kernel of
# each method) or breaks the radix sort's look-back across teams, rebuilds
# build/hip-cpu, runs the suite that covers the kernel and expects it to fail; the source is restored after each. Prints a table; exits 1 if a
# mutation survives.
# Usage: tools/ci/mutations.sh            (after tools/test.sh hip-cpu)
#        MUTATIONS="1 2" tools/ci/mutations.sh   (some only)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${TP_HIP_CPU_BUILD:-build/hip-cpu}
[ -f "$build/build.ninja" ] || { echo "mutations.sh: no $build (run tools/test.sh hip-cpu)" >&2; exit 2; }

# file | the exact text removed or replaced | its replacement | suite | what it breaks
# "line:N:TEXT" instead of a text removes TEXT from the Nth line that holds it (for lines
# of a macro, whose continuation must stay). The dense MTTKRP's own GPU kernels have no
# barrier or team reduction (mttkrp_partial_col_team sums with atomics; the team_size > 1
# branch of mttkrp_width_template.h runs only on CPUs, with teams of one thread), so its mutation is
# in the portable GEMM that its GEMM and BLOCKED variants run on a GPU without a vendor
# BLAS (the hip backend).
mutations=(
  "algorithms/linalg/row_norms_kernels.c|  tp_team_barrier(team);\n||linalg|row norms: the team barrier before the block's sum"
  "algorithms/linalg/row_norms_kernels.c|    sum = tp_vector_sum_f64(team, sum);\n||linalg|row norms: the vector reduction of a row's lanes"
  "algorithms/linalg/gemm_portable_template.h|line:2:tp_team_barrier(team);||mttkrp|dense MTTKRP (GEMM and BLOCKED on the portable GEMM): the barrier between loading a tile and multiplying it"
  "algorithms/sparse_mttkrp/spm_flycoo_template.h|    tp_team_barrier(team);\n    FLYCOO_KN(flycoo_write_window)|    FLYCOO_KN(flycoo_write_window)|sparse_mttkrp|FLYCOO MTTKRP: the barrier before a window's rows are written out"
  "algorithms/sshopm/sshopm_solver_template.h|  TP_TEAM_VECTOR_FOR(team, u, 0, n) staged[u] = tensor[u] * scale;\n  tp_team_barrier(team);\n|  TP_TEAM_VECTOR_FOR(team, u, 0, n) staged[u] = tensor[u] * scale;\n|sshopm|SS-HOPM: the barrier after the tensor is staged in team scratch"
  "algorithms/sttid/tp_prrlu_kernels.h|  return tp_team_max_i64(team, last);|  return last;|prrlu|sparse PRRLU (argmax): the team reduction that tells every thread its team came last"
  "algorithms/cp_als/spd_device_kernels.c|    TP_TEAM_VECTOR_FOR(team, i, j + 1, n) { S[i * n + j] /= pivot; }\n    tp_team_barrier(team);\n|    TP_TEAM_VECTOR_FOR(team, i, j + 1, n) { S[i * n + j] /= pivot; }\n|cp_als|CP-ALS solve in the space: the barrier between scaling a column of the diagonal block and the update it feeds"
  "portable/sort_onesweep.h|      if (tag == inclusive)\n        return 1;\n|      return 1;\n|sort|onesweep radix sort: the look-back stops at the first tile before it instead of the first inclusive count"
  "portable/sort_template.h|    count += ((uint32_t)(tile_keys[e] >> shift) & mask) == d;\n  return count;|    count += ((uint32_t)(tile_keys[e] >> shift) & mask) == d;\n  return count + (d == 0);|sort|onesweep radix sort: the look-back's own count of an unpublished tile counts one key too many"
)

selected=${MUTATIONS:-$(seq 1 ${#mutations[@]} | tr '\n' ' ')}
rows=()
survived=0
for i in $selected; do
  IFS='|' read -r file old new suite what <<<"${mutations[$((i - 1))]}"
  cp "$file" "$file.orig-mutation"
  if ! python3 - "$file" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].encode().decode('unicode_escape'), sys.argv[3].encode().decode('unicode_escape')
text = open(path).read()
if old.startswith("line:"):
    _, nth, needle = old.split(":", 2)
    lines = text.split("\n")
    hits = [i for i, l in enumerate(lines) if needle in l]
    if len(hits) < int(nth):
        sys.exit(f"mutations.sh: {path} has {len(hits)} lines with {needle}")
    i = hits[int(nth) - 1]
    lines[i] = lines[i].replace(needle, new, 1)
    open(path, 'w').write("\n".join(lines))
    sys.exit(0)
if text.count(old) != 1:
    sys.exit(f"mutations.sh: the text to mutate occurs {text.count(old)} times in {path}")
open(path, 'w').write(text.replace(old, new))
PY
  then
    mv "$file.orig-mutation" "$file"
    rows+=("$(printf '%-2s %-14s %-9s %s' "$i" "$suite" "NOT-APPLIED" "$what")")
    survived=1
    continue
  fi
  if ! ninja -C "$build" >"$build/mutation-$i.log" 2>&1; then
    result="NO-BUILD"
    survived=1
  elif timeout 1200 meson test -C "$build" --no-rebuild "$suite" >>"$build/mutation-$i.log" 2>&1; then
    result="SURVIVED"
    survived=1
  else
    result="caught"
  fi
  mv "$file.orig-mutation" "$file"
  touch "$file" # newer than the mutated objects: the next build restores them
  rows+=("$(printf '%-2s %-14s %-9s %s' "$i" "$suite" "$result" "$what")")
  echo "${rows[-1]}"
done
ninja -C "$build" >/dev/null 2>&1 # back to the unmutated build
echo "== mutations of the GPU path, hip backend on the HIP CPU runtime ($build)"
printf '%s\n' "${rows[@]}"
exit $survived
