#!/usr/bin/env bash
# Unpacks the .deb files of .deps/debs (see fetch-deps.sh) into .deps/root, without
# installing anything, and sets up the environment a build needs to use them:
#   PKG_CONFIG_PATH  .deps/pkgconfig: copies of the .pc files with the prefix rewritten
#   LD_LIBRARY_PATH  .deps/lib: links to the unpacked libraries this machine lacks
#   PATH             .deps/bin with the unpacked pkgconf, only if there is no pkg-config
#   TP_DEPS_ROOT     .deps/root
#   TP_LBFGSB_DIR    the folder of liblbfgsb.so for -Dlbfgsb_dir= (if it was fetched)
#   TP_BLIS_DIR      a BLIS prefix for -Dblis_dir= (if BLIS was fetched), links in
#                    ~/.cache/tenport/blis-openmp
# CPATH and LIBRARY_PATH are left alone on purpose: pkgconf drops -I/-L flags naming
# folders listed there, and the .pc files give full paths.
# Sourced (`. tools/gpu/setup-deps.sh`), it exports these into the current shell.
# Executed, it prints the export lines: `eval "$(tools/gpu/setup-deps.sh)"`.

# The work runs in a subshell with strict options, so that sourcing it leaves the
# caller's shell options alone; it prints `export` lines, messages go to stderr.
_tp_setup_deps() (
    set -euo pipefail
    root=$1
    deps=$root/.deps
    debs=$deps/debs
    dest=$deps/root
    multiarch=x86_64-linux-gnu

    shopt -s nullglob
    packages=("$debs"/*.deb)
    if ((${#packages[@]} == 0)); then
        echo "setup-deps: no .deb files in $debs: run tools/gpu/fetch-deps.sh on a" \
             "machine with apt and copy .deps/debs here" >&2
        exit 1
    fi

    # Unpack each .deb once (a stamp per file name).
    mkdir -p "$dest/.unpacked"
    for deb in "${packages[@]}"; do
        stamp=$dest/.unpacked/$(basename "$deb")
        if [[ ! -e $stamp || $deb -nt $stamp ]]; then
            dpkg -x "$deb" "$dest"
            touch "$stamp"
        fi
    done

    # .pc files with the prefix moved into .deps/root. The private requirements (static
    # linking only) are dropped: their development packages are not fetched, and
    # pkg-config would reject a .pc file whose Requires.private are missing.
    rm -rf "$deps/pkgconfig"
    mkdir -p "$deps/pkgconfig"
    for pc in "$dest"/usr/lib/$multiarch/pkgconfig/*.pc "$dest"/usr/lib/pkgconfig/*.pc \
              "$dest"/usr/share/pkgconfig/*.pc; do
        sed -E -e "s#^([A-Za-z_][A-Za-z0-9_.]*)=/usr(/|\$)#\1=$dest/usr\2#" \
               -e '/^(Requires|Libs)\.private:/d' \
            "$pc" >"$deps/pkgconfig/$(basename "$pc")"
    done

    # Shared libraries: link into .deps/lib those whose soname this machine's loader
    # cache lacks, so that the machine's own (newer) copies keep serving everything
    # else. Criterion is always taken from here, to match its headers.
    # TP_DEPS_ALL_LIBS=1 links them all.
    declare -A system_libs=()
    ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
    if [[ ${TP_DEPS_ALL_LIBS:-0} != 1 ]]; then
        while read -r soname rest; do
            [[ $rest == *x86-64* ]] && system_libs[$soname]=1
        done < <("$ldconfig" -p 2>/dev/null || true)
    fi
    rm -rf "$deps/lib"
    mkdir -p "$deps/lib"
    # (BLAS and LAPACK sit in folders of their own: Debian's alternatives link them.)
    for lib in "$dest"/usr/lib/$multiarch/lib*.so.* "$dest"/lib/$multiarch/lib*.so.* \
               "$dest"/usr/lib/$multiarch/blas/lib*.so.* "$dest"/usr/lib/$multiarch/lapack/lib*.so.*; do
        [[ -f $lib && ! -L $lib ]] || continue
        soname=$(objdump -p "$lib" 2>/dev/null | awk '$1 == "SONAME" { print $2 }' || true)
        soname=${soname:-$(basename "$lib")}
        if [[ $soname != libcriterion.so.* && -n ${system_libs[$soname]:-} ]]; then
            continue
        fi
        ln -sf "$lib" "$deps/lib/$soname"
    done

    # BLIS: Debian keeps it in a flavour folder; make a prefix of links with lib/ and
    # include/. It lies outside the source tree: meson refuses include_directories()
    # given as an absolute path inside it.
    blis_lib=$dest/usr/lib/$multiarch/blis-openmp
    blis_inc=$dest/usr/include/$multiarch/blis-openmp
    blis_dir=
    if [[ -e $blis_lib/libblis.so && -e $blis_inc/blis.h ]]; then
        blis_dir=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tenport/blis-openmp
        mkdir -p "$blis_dir"
        ln -sfn "$blis_lib" "$blis_dir/lib"
        ln -sfn "$blis_inc" "$blis_dir/include"
    fi

    # pkg-config itself, if this machine has none.
    path_add=
    if ! pkg-config --version >/dev/null 2>&1 && [[ -x $dest/usr/bin/pkgconf ]]; then
        mkdir -p "$deps/bin"
        ln -sf "$dest/usr/bin/pkgconf" "$deps/bin/pkg-config"
        path_add=$deps/bin
    fi

    prepend() { # NAME DIR: DIR in front of $NAME, once
        local old=${!1:-}
        case ":$old:" in *":$2:"*) printf '%s' "$old" ;; *) printf '%s' "$2${old:+:$old}" ;; esac
    }
    printf 'export %s=%q\n' \
        TP_DEPS_ROOT "$dest" \
        PKG_CONFIG_PATH "$(prepend PKG_CONFIG_PATH "$deps/pkgconfig")" \
        LD_LIBRARY_PATH "$(prepend LD_LIBRARY_PATH "$deps/lib")"
    [[ -n $blis_dir ]] && printf 'export TP_BLIS_DIR=%q\n' "$blis_dir"
    [[ -e $dest/usr/lib/$multiarch/liblbfgsb.so ]] &&
        printf 'export TP_LBFGSB_DIR=%q\n' "$dest/usr/lib/$multiarch"
    [[ -n $path_add ]] && printf 'export PATH=%q\n' "$(prepend PATH "$path_add")"
    echo "setup-deps: ${#packages[@]} packages in $dest;" \
         "$(ls "$deps/lib" | wc -l) libraries on LD_LIBRARY_PATH${blis_dir:+; BLIS: -Dblis_dir=$blis_dir}" >&2
    exit 0
)

_tp_setup_deps_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ ${BASH_SOURCE[0]} != "$0" ]]; then
    # Sourced: export into this shell.
    if _tp_setup_deps_env=$(_tp_setup_deps "$_tp_setup_deps_root"); then
        eval "$_tp_setup_deps_env"
        unset -f _tp_setup_deps
        unset _tp_setup_deps_env _tp_setup_deps_root
    else
        unset -f _tp_setup_deps
        unset _tp_setup_deps_env _tp_setup_deps_root
        return 1
    fi
else
    set -euo pipefail
    _tp_setup_deps "$_tp_setup_deps_root"
fi
