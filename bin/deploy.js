#!/usr/bin/env node
// The published entry point runs the bundle built by `npm run build`.
import '../dist/deploy.mjs';
