#!/bin/sh
# Commits the queue's two files on top of HEAD: `mosaic-queue commit -m MSG [--genesis]`.
# It never pushes. MOSAIC_QUEUE_BIN names the binary.
exec "${MOSAIC_QUEUE_BIN:-mosaic-queue}" commit "$@"
