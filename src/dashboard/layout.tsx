/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { shortDateTime } from '../time/date-format.js';

/** The one piece of markup JSX cannot write. */
const DOCTYPE = '<!doctype html>';

export interface Shell {
  /** Shows the navigation; true adds the log-out button. Undefined (the login page): no navigation. */
  signedIn?: boolean;
  prefix?: string;
}

function Nav({ signedIn, prefix }: Shell) {
  return (
    <>
      <a href="/">Overview</a>
      <a href="/queues">Queues</a>
      <span class="grow"></span>
      {prefix ? <span class="muted">prefix {prefix}</span> : null}
      {signedIn ? (
        <form class="inline" method="post" action="/logout">
          <button type="submit">Log out</button>
        </form>
      ) : null}
    </>
  );
}

export interface PageProps {
  title: string;
  shell?: Shell;
  /** Script URLs of the dashboard's own /assets, loaded deferred. */
  scripts?: string[];
  children: ComponentChildren;
}

/** A whole page with the program's header; styles and scripts come from the dashboard's own /assets. */
export function Page({ title, shell = {}, scripts = [], children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{`${title} · inventory-sync`}</title>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="stylesheet" href="/assets/dashboard.css" />
        {scripts.map((src) => (
          <script src={src} defer></script>
        ))}
      </head>
      <body>
        <header>
          <strong>inventory-sync</strong>
          {shell.signedIn === undefined ? null : <Nav {...shell} />}
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}

/** A page as the HTML to send: every value in it escaped by the renderer. */
export function renderPage(page: VNode): string {
  return DOCTYPE + renderToString(page);
}

/** Epoch-free ISO time as the pages show it (UTC, to the second), or a muted dash. */
export function When({ iso }: { iso: string | null | undefined }) {
  return iso ? <>{shortDateTime(iso)}</> : <span class="muted">-</span>;
}

/** A flash message carried in the URL after an action. */
export function Flash({ text }: { text: string | undefined }) {
  return text ? (
    <p class="flash" role="status">
      {text}
    </p>
  ) : null;
}
