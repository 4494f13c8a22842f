#!/usr/bin/env bash
# Makes the TEST-ONLY certificates in this folder (never use them anywhere else: the keys are
# public). Two CAs: "ca" signs the server (localhost, 127.0.0.1) and client certificates the
# tests trust; "other_ca" signs certificates a server or client must refuse. Valid 100 years.
set -euo pipefail
cd "$(dirname "$0")"
days=36500
key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1.key.tmp" &&
        openssl pkcs8 -topk8 -nocrypt -in "$1.key.tmp" -out "$1.key" && rm "$1.key.tmp"; }
ca() {
  key "$1"
  openssl req -x509 -new -key "$1.key" -sha256 -days "$days" -subj "/CN=profdiff test $1" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$1.pem"
}
leaf() {  # name ca usage
  key "$1"
  openssl req -new -key "$1.key" -subj "/CN=profdiff test $1" -out "$1.csr"
  printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=%s\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' \
    "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days "$days" \
    -sha256 -extfile "$1.ext" -out "$1.pem"
  rm "$1.csr" "$1.ext"
}
ca ca
ca other_ca
leaf server ca serverAuth
leaf client ca clientAuth
leaf other_server other_ca serverAuth
leaf other_client other_ca clientAuth
rm -f ./*.srl ca.key other_ca.key
