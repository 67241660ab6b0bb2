#!/bin/sh
# Moves every canvas that HAProxy now routes to another node than the one holding it: after a node was
# added to deploy/haproxy.cfg (and HAProxy reloaded), run this once. For each canvas a node holds, it asks
# the proxy which node serves that canvas now (the X-Snapboard-Node header the proxy adds), and for each
# that moved: exports it from the old node, imports it on the new one through the proxy (PUT), then
# deletes it on the old node. Sessions on a moved canvas are closed (4004 by the old node) and reconnect
# through the proxy to the new one. Canvases changed during their move lose what came between the export
# and the delete: run it when they are quiet, or stop writes first. A canvas whose new node already holds
# more history (a higher seq) than the old one is left where it is and reported: its copy on the old node
# is the stray one, and the move would overwrite the real canvas with it. The script then exits 1.
#
#   deploy/move-canvases.sh PROXY NODE_NAME=HOST:PORT ...
#   deploy/move-canvases.sh localhost:8081 node1=10.0.0.1:8080 node2=10.0.0.2:8080 node3=10.0.0.3:8080
# With --admin-token set on the nodes, export SNAPBOARD_ADMIN_TOKEN first. Needs curl.
set -eu
proxy=$1
shift
auth=""
[ -n "${SNAPBOARD_ADMIN_TOKEN:-}" ] && auth="Authorization: Bearer $SNAPBOARD_ADMIN_TOKEN"
moved=0
refused=0
# The seq of a canvas as GET /v1/canvases/{id} at $1 tells it, or -1 when there is none.
seq_at() {
    curl -sS -H "${auth:-X-No-Auth: 1}" "$1" \
        | python3 -c 'import json,sys
try: print(int(json.load(sys.stdin).get("seq", -1)))
except Exception: print(-1)'
}
for entry in "$@"; do
    name=${entry%%=*}
    node=${entry#*=}
    after=""
    while :; do
        page=$(curl -fsS -H "${auth:-X-No-Auth: 1}" "http://$node/v1/canvases?limit=1000${after:+&after=$after}")
        ids=$(printf '%s' "$page" | python3 -c 'import json,sys; print("\n".join(c["id"] for c in json.load(sys.stdin)["canvases"]))')
        for id in $ids; do
            owner=$(curl -sS -o /dev/null -D - -H "${auth:-X-No-Auth: 1}" -H 'X-Snapboard-Node: ?' \
                "http://$proxy/v1/canvases/$id/history?limit=1" \
                | tr -d '\r' | sed -n 's/^[Xx]-[Ss]napboard-[Nn]ode: //p')
            [ -z "$owner" ] || [ "$owner" = "$name" ] && continue
            source_seq=$(seq_at "http://$node/v1/canvases/$id")
            target_seq=$(seq_at "http://$proxy/v1/canvases/$id")
            if [ "$target_seq" -gt "$source_seq" ]; then
                echo "refused $id: $owner holds seq $target_seq, more than $name's $source_seq; not overwritten" >&2
                refused=$((refused + 1))
                continue
            fi
            curl -fsS -H "${auth:-X-No-Auth: 1}" "http://$node/v1/canvases/$id/export" \
                | curl -fsS -o /dev/null -X PUT -H "${auth:-X-No-Auth: 1}" -H 'Content-Type: application/json' \
                    --data-binary @- "http://$proxy/v1/canvases/$id"
            curl -fsS -o /dev/null -X DELETE -H "${auth:-X-No-Auth: 1}" "http://$node/v1/canvases/$id"
            echo "moved $id: $name -> $owner"
            moved=$((moved + 1))
        done
        after=$(printf '%s' "$page" | python3 -c 'import json,sys; n=json.load(sys.stdin)["next"]; print(n or "")')
        [ -z "$after" ] && break
    done
done
echo "$moved canvases moved"
[ "$refused" -eq 0 ] || { echo "$refused canvases refused (their new node has more history)" >&2; exit 1; }
