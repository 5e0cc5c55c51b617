#!/bin/sh
# `npm start` after `bundle.mjs`: the server from its startup snapshot when the bundle step left
# one (it leaves one only where it fits: newer than the bundle, built by this Node), else from the
# bundle; with the Node flags of the bundle's first line either way (`launch.mjs` for the rest).
dist="$(dirname "$0")/../dist"
flags="$(head -n 1 "$dist/server.js" | sed -n 's|^#!/usr/bin/env -S node||p')"
# A snapshot loads only with the V8 flags it was built with: none may come from NODE_OPTIONS.
if [ -f "$dist/server.blob" ] && [ -z "$NODE_OPTIONS" ]; then
  exec node $flags --snapshot-blob "$dist/server.blob"
else
  exec node $flags "$dist/server.js"
fi
