#!/usr/bin/env bash
# Encodes the readable seeds (seeds/diff_request/*.textproto) into the diff_request corpus.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
for seed in "$here"/seeds/diff_request/*.textproto; do
  protoc -I"$root/protos" --encode=profdiff.v1.DiffRequest profdiff/v1/differ.proto <"$seed" \
    >"$here/corpus/diff_request/$(basename "$seed" .textproto).pb"
done
