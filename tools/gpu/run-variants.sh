#!/usr/bin/env bash
# One benchmark at several builds, in one job on one GPU, the runs alternating
# (a, b, c, a, b, c, ...), so that a change's effect is told from the machine's drift.
# Each variant is NAME=SPEC in VARIANTS (space-separated):
#   NAME=.deps/base-REV.tar   an earlier revision (made where the history is:
#                             git archive REV -o .deps/base-REV.tar; .deps/ is carried)
#   NAME=                     this tree
#   NAME=-DMACRO=V[,-D...]    this tree compiled with those definitions (cuda_args, or
#                             c_args for a host backend)
# Each builds with the backend BACKEND (default cuda) and no tests, in
# build-variant-NAME (made again when its backend or definitions change; the build's
# output goes to RESULTS_DIR/build-NAME.log), and its runs write
# RESULTS_DIR/NAME-<round>.log. The hip backend takes no definitions.
#
# Usage: VARIANTS="base=.deps/base-X.tar tree= regs64=-DSSHOPM_MIN_TEAMS=4" \
#          tools/gpu/run-variants.sh RESULTS_DIR TARGET [ARGS...]
#        TARGET is a ninja target, e.g. perf/tp-bench-sshopm; it runs with ARGS, in which
#        @RUN@ stands for the run's name (NAME-<round>[-<set>]), e.g. --json out/@RUN@.json.
# Environment: RUNS (rounds, default 2), TIMEOUT (seconds per run, default 120),
#   TP_BLIS_DIR (a BLIS prefix for host backends, as setup-deps.sh exports it),
#   ARG_SETS: several argument lists separated by ';', each run in turn in every round
#   after ARGS (logs NAME-<round>-<set>.log), e.g. two tensors for one benchmark.
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:?usage: run-variants.sh RESULTS_DIR TARGET [ARGS...]}
target=${2:?usage: run-variants.sh RESULTS_DIR TARGET [ARGS...]}
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd) # runs start in their variant's source folder
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'

backend=${BACKEND:-cuda} args_lang=c arch_option=
[[ $backend == cuda ]] && args_lang=cuda arch_option=-Dnvcc_arch=sm_90
set -f # variants and argument sets are split into words, never globbed
declare -A source_of
names=()
for v in ${VARIANTS:?set VARIANTS, e.g. \"base=.deps/base-X.tar tree=\"}; do
  [[ $v == *=* ]] || { echo "variant '$v' is not NAME=SPEC" >&2; exit 2; }
  name=${v%%=*} spec=${v#*=}
  [[ -z ${source_of[$name]:-} ]] || { echo "variant name '$name' is given twice" >&2; exit 2; }
  names+=("$name")
  src=$PWD defines=
  if [[ $spec == *.tar ]]; then
    src=/tmp/tenport-variant-$name
    rm -rf "$src" && mkdir -p "$src" && tar -xf "$spec" -C "$src" || exit 1
  else
    defines=${spec//,/ } # meson splits a compiler-arguments option at spaces
  fi
  if [[ -n $defines && $backend == hip ]]; then # its kernels take neither c_args nor cuda_args
    echo "variant '$name': -D definitions are not passed to the hip backend" >&2
    exit 2
  fi
  source_of[$name]=$src
  say "build $name (${spec:-this tree})"
  dir=build-variant-$name
  # a build folder configured for another backend or other definitions is made again
  stamp="$backend $defines"
  if [[ -f $src/$dir/build.ninja && "$(cat "$src/$dir/.variant" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "${src:?}/$dir"
  fi
  (cd "$src" && { [[ -f $dir/build.ninja ]] ||
    { meson setup "$dir" -Dtenport_backend="$backend" -Dtests=disabled -Dpython=disabled \
      ${arch_option:+"$arch_option"} ${defines:+"-D${args_lang}_args=$defines"} \
      ${TP_BLIS_DIR:+"-Dblis_dir=$TP_BLIS_DIR"} &&
      echo "$stamp" >"$dir/.variant"; }; } &&
    ninja -C "$dir" "$target") >"$out/build-$name.log" 2>&1 ||
    { tail -n 30 "$out/build-$name.log"; echo "$name did not build"; exit 1; }
done

IFS=';' read -r -a sets <<<"${ARG_SETS:-}"
[[ ${#sets[@]} -gt 0 ]] || sets=("")
for ((i = 1; i <= ${RUNS:-2}; i++)); do
  for name in "${names[@]}"; do
    for ((k = 0; k < ${#sets[@]}; k++)); do
      run=$name-$i
      [[ ${#sets[@]} -gt 1 ]] && run=$run-$((k + 1))
      log=$out/$run.log
      say "round $i: $name${sets[k]:+ (${sets[k]})}"
      # shellcheck disable=SC2086 # a set is a list of words
      (cd "${source_of[$name]}" &&
        timeout "${TIMEOUT:-120}" "build-variant-$name/$target" "${@//@RUN@/$run}" ${sets[k]}) \
        >"$log" 2>&1
      echo "exit $?"
      tail -n 8 "$log" | cut -c1-160
    done
  done
done
say "done"
