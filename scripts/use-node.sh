# Puts Node 24 LTS first on PATH when the machine's Node is older.
# Source it: `. scripts/use-node.sh` (CI does; developers may too).
# The official binaries come from the npm registry's `node` package, installed once into
# ~/.cache/warren-node (WARREN_NODE_DIR) — the only registry these machines reach.
want=24
major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null; }
if [ "$(major node)" != "$want" ]; then
  dir="${WARREN_NODE_DIR:-$HOME/.cache/warren-node}"
  bin="$dir/node_modules/node/bin"
  if [ "$(major "$bin/node")" != "$want" ]; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$want" >/dev/null 2>&1 \
      || echo "use-node.sh: could not install node@$want from the npm registry" >&2
  fi
  if [ "$(major "$bin/node")" = "$want" ]; then
    export PATH="$bin:$PATH"
  fi
fi
echo "node $(node -v), npm $(npm -v)" >&2
