#!/usr/bin/env bash
# The layering check: every `crate::<module>` path in the library's code must point down the
# layers (ARCHITECTURE.md, "The layers"):
#
#   model <- catalogue <- search <- service        (the service side)
#   model <- client <- ui <- app                   (the window side)
#   upstream <- service, client                    (outside HTTP: body caps, redirects, errors)
#   model <- figures <- ui, service                (pure arithmetic the views draw and the
#                                                   service ranks flips by)
#   durable <- catalogue, search, service, app     (replacing a whole file, crash-safe)
#   model, durable <- userdb <- app                (the user's own data, its own SQLite file)
#   cli: the binary's subcommands (`monitor`, `portfolio`, `man`), which wire the service and the
#        window's parts together as `main.rs` does (they use `solescope::`, not `crate::`)
#
# A module may use itself and the modules listed for it below, nothing else. Test modules
# (from a `#[cfg(test)]` line to the end of the file) are left out: a test may assemble any
# layers, as `main.rs` does (the bin is the one place that wires the service and the window).
# Fails with one line per import against the direction.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A allowed=(
    [model]=""
    [durable]=""
    [catalogue]="model durable"
    [search]="model catalogue durable"
    [upstream]=""
    [service]="model catalogue search durable upstream figures"
    [client]="model upstream"
    [figures]="model"
    [ui]="model client figures"
    [userdb]="model durable"
    [app]="model client figures ui durable userdb"
    [cli]="model catalogue search service upstream client figures ui app userdb durable"
)

status=0
# A new top-level module must be given its place first.
for path in src/*; do
    name="$(basename "$path" .rs)"
    [[ "$name" == lib || "$name" == main || -n "${allowed[$name]+set}" ]] && continue
    echo "layering: $path: unknown module \`$name\`: give it a layer in .ci/layering.sh and ARCHITECTURE.md"
    status=1
done
for module in "${!allowed[@]}"; do
    files=()
    [[ -f "src/$module.rs" ]] && files+=("src/$module.rs")
    [[ -d "src/$module" ]] && while IFS= read -r file; do files+=("$file"); done \
        < <(find "src/$module" -name '*.rs' | sort)
    for file in "${files[@]}"; do
        # Code up to the first `#[cfg(test)]`, with line numbers, `//` comments dropped.
        while IFS=: read -r line target; do
            [[ "$target" == "$module" ]] && continue
            if [[ "$target" == "{" ]]; then
                echo "layering: $file:$line: write one \`use crate::<module>::...\` per module, so this check can read it"
                status=1
                continue
            fi
            if [[ " ${allowed[$module]} " != *" $target "* ]]; then
                echo "layering: $file:$line: \`$module\` uses \`crate::$target\`; it may use only: ${allowed[$module]:-nothing else}"
                status=1
            fi
        done < <(awk '/^[[:space:]]*#\[cfg\(test\)\]/ { exit } { sub(/\/\/.*/, ""); print FNR ":" $0 }' "$file" \
            | grep -oE '^[0-9]+:|crate::(\{|[a-z_]+)' \
            | awk '/^[0-9]+:$/ { line = substr($0, 1, length($0) - 1); next } { sub(/^crate::/, ""); print line ":" $0 }')
    done
done

if [[ "$status" -eq 0 ]]; then
    echo "layering: every crate:: path points down the layers"
fi
exit "$status"
