/** Escapes text for HTML element content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:.6rem 1.2rem;display:flex;gap:1.2rem;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header .grow{flex:1}
main{padding:1rem 1.2rem;max-width:1200px}
h2{font-size:1.05rem;margin:1.4rem 0 .5rem}
table{border-collapse:collapse;background:#fff;width:100%;font-size:.9rem}
th,td{border:1px solid #dde1e7;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eef1f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#a40000;font-weight:600}.ok{color:#116329}.muted{color:#687384}
.flash{background:#fff6d6;border:1px solid #e8d58a;padding:.5rem .8rem;margin:.5rem 0}
pre{background:#fff;border:1px solid #dde1e7;padding:.8rem;overflow:auto;font-size:.85rem}
button{cursor:pointer}form.inline{display:inline}
.charts{display:flex;flex-wrap:wrap;gap:.8rem}.chart h3{font-size:.9rem;margin:.2rem 0}.chart svg{display:block;margin-bottom:.3rem}
form.find{margin:.6rem 0}form.find input{padding:.3rem;width:22rem;margin:0 .4rem}
.login{max-width:320px;margin:4rem auto;background:#fff;padding:1.5rem;border:1px solid #dde1e7}
.login label{display:block;margin:.6rem 0 .2rem}.login input{width:100%;box-sizing:border-box;padding:.4rem}
`;

/** A whole page with the program's header. `signedIn` shows the log-out button. */
export function page(title: string, body: string, o: { signedIn?: boolean; prefix?: string } = {}): string {
  const nav = o.signedIn === undefined
    ? ''
    : `<a href="/">Overview</a><a href="/queues">Queues</a><span class="grow"></span>${o.prefix ? `<span class="muted">prefix ${esc(o.prefix)}</span>` : ''}${
        o.signedIn ? '<form class="inline" method="post" action="/logout"><button type="submit">Log out</button></form>' : ''
      }`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · inventory-sync</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><header><strong>inventory-sync</strong>${nav}</header><main>${body}</main></body></html>`;
}
