/** The console's one stylesheet, served from /assets/console.css (no inline style: the CSP forbids it). */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --bg: #ffffff; --panel: #f4f6f8; --line: #d5dae0;
  --accent: #0b5cad; --ok: #1a7f37; --warn: #9a6700; --bad: #b42318; --used: #0b5cad; --reserved: #8fb8e6; --free: #e6ebf0; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa6b2; --bg: #0f1419; --panel: #1a2129; --line: #2d3640;
  --accent: #58a6ff; --used: #58a6ff; --reserved: #2f5f8f; --free: #26303a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.5rem; padding: 0.75rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header .brand { font-weight: 700; letter-spacing: 0.02em; }
nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
nav a { color: var(--fg); text-decoration: none; padding: 0.2rem 0; border-bottom: 2px solid transparent; }
nav a[aria-current="page"] { border-bottom-color: var(--accent); font-weight: 600; }
nav a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.25rem 3rem; overflow-wrap: anywhere; }
input:not([type="password"]) { max-width: 100%; }
h1 { font-size: 1.4rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 0 0 1rem; background: var(--bg); }
.terms { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0.5rem 0 1rem; }
.terms dt { color: var(--muted); }
.terms dd { margin: 0; overflow-wrap: anywhere; }
.amount { font-size: 1.3rem; font-weight: 700; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
button { font: inherit; padding: 0.45rem 0.9rem; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--bad); }
button:disabled { opacity: 0.55; cursor: default; }
input, textarea, select { font: inherit; padding: 0.4rem 0.5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
textarea { width: 100%; min-height: 22rem; font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 13px; }
label { display: inline-flex; flex-direction: column; gap: 0.2rem; }
.muted { color: var(--muted); }
.status { padding: 0.5rem 0.75rem; border-radius: 6px; background: var(--panel); margin: 0.5rem 0; }
.status.ok { color: var(--ok); } .status.bad { color: var(--bad); } .status.warn { color: var(--warn); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.table-wrap { overflow-x: auto; }
svg.chart { width: 100%; height: auto; display: block; }
svg .axis { stroke: var(--line); }
svg text { fill: var(--muted); font-size: 11px; }
svg .s0, .swatch.s0 { fill: #0b5cad; background: #0b5cad; } svg .s1, .swatch.s1 { fill: #c4432b; background: #c4432b; } svg .s2, .swatch.s2 { fill: #2e8540; background: #2e8540; }
svg .s3, .swatch.s3 { fill: #8a4fbf; background: #8a4fbf; } svg .s4, .swatch.s4 { fill: #b7791f; background: #b7791f; } svg .s5, .swatch.s5 { fill: #2b8a9a; background: #2b8a9a; }
figure { margin: 0 0 1rem; }
svg .used { fill: var(--used); } svg .reserved { fill: var(--reserved); } svg .free { fill: var(--free); }
.legend { display: flex; flex-wrap: wrap; gap: 0.75rem; font-size: 0.9rem; }
.swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin-right: 0.3rem; vertical-align: -0.1rem; }
.swatch.used { background: var(--used); } .swatch.reserved { background: var(--reserved); } .swatch.free { background: var(--free); border: 1px solid var(--line); }
.token { font-family: ui-monospace, monospace; overflow-wrap: anywhere; padding: 0.5rem; background: var(--panel); border-radius: 6px; }
@media (max-width: 640px) { header { padding: 0.6rem 0.8rem; } main { padding: 0.75rem 0.8rem 2rem; } .terms { grid-template-columns: 1fr; } .terms dt { margin-top: 0.4rem; } }
`;
