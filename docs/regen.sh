#!/usr/bin/env bash
# Reruns every command whose output README.md and docs/*.md show, and
# writes the output back in place. Usage:
#
#   docs/regen.sh                  # README.md and every docs/*.md
#   docs/regen.sh docs/results.md  # only the files named
#
# A marker line names the command; it runs from the repository root with
# `apic` built from this tree first on PATH (and `evaltable`, built from
# docs/evaltable.go), under bash -e -o pipefail. Four kinds:
#
#   <!-- regen: CMD -->        the fenced block right below becomes
#                              "$ CMD" (apic written as `go run .`) and
#                              CMD's standard output
#   <!-- regen-quiet: CMD -->  the fenced block right below becomes CMD's
#                              output alone
#   <!-- regen-md: CMD -->     the lines up to <!-- /regen --> become CMD's
#                              output (a Markdown table), a blank line and
#                              "`$ CMD`" (as regen's blocks show it), so
#                              that a reader of the rendered page sees it
#   <!-- regen-md-quiet: CMD --> the table alone, where the prose beside
#                              it gives the command
#   <!-- regen-run: CMD -->    CMD runs (it writes a figure or a file);
#                              nothing is replaced
#
# REGEN_SKIP=REGEX leaves the blocks whose command matches REGEX as
# they are (e.g. REGEN_SKIP='--methods all' skips the baselines' long
# runs); their output then dates from their last full regeneration.
# REGEN_ONLY=REGEX keeps every block whose command does not match it.
# The blocks of docs/peer-rounds.sh (apic against PyTorch) are kept as
# they are where its peers (PEER, default ../shared/peer) are absent.
#
# Trailing blanks are cut from every output line. A command that fails
# stops the script before its file is rewritten. Identical `apic eval`
# commands run once per invocation (eval is deterministic). The whole set
# takes about 20 minutes on an idle 2-core machine, an hour on a busy
# one; it needs go, bash, tmux and jq.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/cache"
go build -o "$tmp/bin/apic-built" .
go build -o "$tmp/bin/evaltable" docs/evaltable.go
cat > "$tmp/bin/apic" <<'EOF'
#!/usr/bin/env bash
# apic, with each distinct `eval` command run once per regen.sh call.
set -euo pipefail
real=$(dirname "$0")/apic-built
if [[ ${1-} != eval ]]; then exec "$real" "$@"; fi
key=$(printf '%s\0' "$@" | sha256sum | cut -c1-40)
cached=$REGEN_CACHE/$key
if [[ ! -f $cached ]]; then
  "$real" "$@" > "$cached.part"
  mv "$cached.part" "$cached"
fi
cat "$cached"
EOF
chmod +x "$tmp/bin/apic"
export PATH="$tmp/bin:$PATH" REGEN_CACHE="$tmp/cache"

# docs/benchmarks.md is the project's benchmark contract, kept as it
# was given, under a note for readers of this repository.
if [[ -f ../shared/BENCHMARKS.md ]]; then
  { sed -n '1p' ../shared/BENCHMARKS.md
    printf '\n> This page is the benchmark contract apic was built to, as its\n'
    printf '> developers received it. The paper file and the instructions to\n'
    printf '> implementers it names are outside this repository; the paper is\n'
    printf '> APIC (Amortized Physics-Informed Calibration with Neural Processes).\n'
    sed -n '2,$p' ../shared/BENCHMARKS.md; } > docs/benchmarks.md
fi

# output runs one marker's command, printing its output with trailing
# blanks cut; a failure names the file and line.
output() {
  local file=$1 line=$2 cmd=$3
  echo "regen: $file:$line: $cmd" >&2
  if ! bash -e -o pipefail -c "$cmd" > "$tmp/cmd.out"; then
    echo "regen: $file:$line: command failed: $cmd" >&2
    exit 1
  fi
  sed 's/[[:space:]]*$//' "$tmp/cmd.out"
}

# shown writes CMD as a reader types it: apic as `go run .`, evaltable
# as `go run docs/evaltable.go`, wherever bash reads them as a command
# (at the start, after | ; & or (, and after the keywords do, then and
# else, which loops and conditionals put before their first command).
shown() {
  local at='(^|[|;&(] *|[|;&( ](do|then|else) +)'
  sed -E "s/${at}apic /\\1go run . /g; s/${at}evaltable /\\1go run docs\\/evaltable.go /g" <<< "$1"
}

marker='^<!-- regen(-quiet|-md|-md-quiet|-run)?: (.*) -->$'

regen_file() {
  local file=$1 out="$tmp/file.out" state=copy n=0 cmd= kind= line
  : > "$out"
  while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    case $state in
    copy)
      printf '%s\n' "$line" >> "$out"
      if [[ $line =~ $marker ]]; then
        kind=${BASH_REMATCH[1]:-block} cmd=${BASH_REMATCH[2]}
        if [[ -n ${REGEN_SKIP-} && $cmd =~ $REGEN_SKIP ]]; then
          echo "regen: $file:$n: kept (REGEN_SKIP): $cmd" >&2
          continue
        fi
        if [[ -n ${REGEN_ONLY-} && ! $cmd =~ $REGEN_ONLY ]]; then
          echo "regen: $file:$n: kept (REGEN_ONLY): $cmd" >&2
          continue
        fi
        if [[ $cmd == docs/peer-rounds.sh* && ! -d ${PEER:-../shared/peer} ]]; then
          echo "regen: $file:$n: kept (no PyTorch peers at ${PEER:-../shared/peer}): $cmd" >&2
          continue
        fi
        case $kind in
        -run) output "$file" "$n" "$cmd" > /dev/null ;;
        -md | -md-quiet)
          output "$file" "$n" "$cmd" >> "$out"
          if [[ $kind == -md ]]; then
            printf '\n`$ %s`\n' "$(shown "$cmd")" >> "$out"
          fi
          state=skip-md
          ;;
        *) state=want-fence ;;
        esac
      fi
      ;;
    want-fence)
      if [[ $line != '```'* ]]; then
        echo "regen: $file:$n: a fenced block must follow the marker" >&2
        exit 1
      fi
      printf '%s\n' "$line" >> "$out"
      if [[ $kind == block ]]; then
        printf '$ %s\n' "$(shown "$cmd")" >> "$out"
      fi
      output "$file" "$((n - 1))" "$cmd" >> "$out"
      state=skip-block
      ;;
    skip-block)
      if [[ $line == '```' ]]; then
        printf '%s\n' "$line" >> "$out"
        state=copy
      fi
      ;;
    skip-md)
      if [[ $line == '<!-- /regen -->' ]]; then
        printf '%s\n' "$line" >> "$out"
        state=copy
      fi
      ;;
    esac
  done < "$file"
  if [[ $state != copy ]]; then
    echo "regen: $file: the block of the marker before line $n never ends" >&2
    exit 1
  fi
  if ! cmp -s "$out" "$file"; then
    cp "$out" "$file"
    echo "regen: rewrote $file" >&2
  fi
}

files=("$@")
if ((${#files[@]} == 0)); then
  files=(README.md docs/*.md)
fi
for f in "${files[@]}"; do
  regen_file "$f"
done
