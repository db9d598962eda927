/** Colours of the handshake's steps: the waits on the balancer warm, the host's own work cool. */
export const STEP_COLOURS: readonly (readonly [string, string])[] = [
  ['prepare', '#b8c4d6'],
  ['pre-host', '#d0d0d0'],
  ['lock', '#6c7a89'],
  ['capacity', '#9aa5b1'],
  ['drain', '#e8a33d'],
  ['await-out', '#f2c14e'],
  ['overlap', '#f7dc8c'],
  ['stop', '#d9534f'],
  ['switch', '#8e44ad'],
  ['start', '#2e86c1'],
  ['verify', '#48a9a6'],
  ['undrain', '#5cb85c'],
  ['await-in', '#8fd18f'],
  ['confirm', '#1e8449'],
  ['unlock', '#6c7a89'],
  ['rollback', '#7b241c'],
  ['post-host', '#d0d0d0'],
];

const steps = STEP_COLOURS.map(([s, c]) => `.s-${s}{background:${c}}`).join('');

/** The page's one stylesheet, inline: the report fetches nothing. */
export const CSS = `
:root{--name:11rem;--verdict:9rem;--receipt:11rem;font:14px/1.4 system-ui,sans-serif;color:#1c2833;background:#fff}
body{margin:1.5rem}
h1{font-size:1.3rem;margin:0 0 .3rem}
.facts{margin:0 0 1rem;color:#34495e}
.facts.bad,.judgement.bad,.error{color:#a93226}
.legend{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin:.6rem 0;padding:0;list-style:none;font-size:12px}
.legend span{display:inline-block;width:.9rem;height:.7rem;margin-right:.3rem;vertical-align:middle}
.axis,.host,summary{display:grid;grid-template-columns:var(--name) var(--verdict) 1fr var(--receipt);align-items:center;gap:0 .5rem}
.axis{position:sticky;top:0;background:#fff;z-index:2;border-bottom:1px solid #ccd;height:1.4rem}
.axis .track{height:1.4rem}
.tick{position:absolute;top:0;font-size:11px;color:#566573;border-left:1px solid #ccd;padding-left:2px;height:100%}
summary{cursor:pointer;font-weight:600;padding:.25rem 0;border-top:1px solid #e5e8e8;background:#f4f6f7}
.wave.bad summary{background:#fdedec}
.hosts{list-style:none;margin:0;padding:0}
.host{padding:1px 0;content-visibility:auto;contain-intrinsic-size:auto 20px}
.host:nth-child(even){background:#fbfcfc}
.name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.verdict{font-size:12px}
.host.bad .verdict{color:#a93226;font-weight:600}
.receipt{font-size:12px;color:#34495e}
.track{position:relative;height:18px;display:block;overflow:hidden}
.bar,.bound,.span{position:absolute;top:1px;height:12px;min-width:2px;box-sizing:border-box}
.bound{top:14px;height:4px;border:1px solid #566573;border-top:0;background:transparent}
.legend .bound{position:static;height:.5rem;border-top:0}
.span{background:#aab7b8;opacity:.7}
.bar.failed{outline:2px solid #a93226;z-index:1}
.bar.back{background-image:repeating-linear-gradient(45deg,transparent 0 3px,rgba(0,0,0,.35) 3px 5px)}
.error{grid-column:2 / -1;margin:0 0 .3rem;font-size:12px}
.judgement{margin:.2rem 0 .2rem var(--name);font-size:12px}
.judgement.ok{color:#1e8449}
table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #d5d8dc;padding:.2rem .5rem;text-align:left;font-size:13px}
${steps}
`;
