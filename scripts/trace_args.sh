# Sourced by the scripts that measure a method on trace stores (chameleon_accuracy.sh,
# psnap_accuracy.sh, psnap_profile_size.sh); they share one command line:
#   SCRIPT HMTT TRACE.hmtt... [-- --param key=value ...]
# parse_trace_args "$@" sets H (the hmtt binary), traces (array) and extra (array: what follows
# --). -h/--help prints the calling script's header comment and exits 0; a missing argument, an
# hmtt that is not executable or a trace that is not a file exits 2 with a message naming it.
print_script_help() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

parse_trace_args() {
  local me
  me=$(basename "$0")
  if [ $# -ge 1 ] && { [ "$1" = "--help" ] || [ "$1" = "-h" ]; }; then
    print_script_help
    exit 0
  fi
  if [ $# -lt 2 ]; then
    print_script_help >&2
    echo "$me: needs the hmtt binary and at least one trace store" >&2
    exit 2
  fi
  H=$1
  shift
  [ -x "$H" ] || { echo "$me: $H: not an executable hmtt" >&2; exit 2; }
  traces=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do traces+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  extra=("$@")
  [ ${#traces[@]} -gt 0 ] || { echo "$me: no trace store given" >&2; exit 2; }
  local t
  for t in "${traces[@]}"; do
    [ -f "$t" ] || { echo "$me: $t: no such trace store" >&2; exit 2; }
  done
}
