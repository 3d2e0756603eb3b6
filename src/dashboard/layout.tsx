/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { createContext, type ComponentChildren, type VNode } from 'preact';
import { useContext } from 'preact/hooks';
import { renderToString } from 'preact-render-to-string';
import { shortDateTime } from '../time/date-format.js';

/** The one piece of markup JSX cannot write. */
const DOCTYPE = '<!doctype html>';

export interface Shell {
  /** Shows the navigation; true adds the log-out button. Undefined (the login page): no navigation. */
  signedIn?: boolean;
  prefix?: string;
  /** Where the pages of the account shown are: '' (one account, the default) or `/a/NAME` (one of ACCOUNTS_FILE's). */
  base?: string;
  /** ACCOUNTS_FILE's accounts, for the picker; `current` is the one shown, none on the all-accounts page. */
  accounts?: AccountPicker;
}

/** ACCOUNTS_FILE's accounts: the one a page shows (none on the all-accounts page). */
export interface AccountPicker {
  current?: string;
}

/** The path of an account's pages (`/a/acme`); the account's name is checked before it gets here. */
export const accountBase = (name: string) => `/a/${name}`;

const Base = createContext('');

/** A path of the dashboard under the account a page shows: `at('/jobs/1')` is `/a/acme/jobs/1` on acme's pages. */
export function useAt(): (path: string) => string {
  const base = useContext(Base);
  return (path) => base + path;
}

/**
 * The way to the all-accounts page (where every account is, searchable and paged) and the account shown: a link to
 * each account would be thousands of links on every page.
 */
function Picker({ current }: AccountPicker) {
  return (
    <nav id="accounts" class="accounts" aria-label="Accounts">
      <a href="/" aria-current={current === undefined ? 'page' : undefined}>
        All accounts
      </a>
      {current !== undefined ? (
        <a href={`${accountBase(current)}/`} data-account={current} aria-current="page">
          {current}
        </a>
      ) : null}
    </nav>
  );
}

function Nav({ signedIn, prefix, base = '', accounts }: Shell) {
  // The all-accounts page has no queues of its own: each account's are on its pages.
  const ofAccount = !accounts || accounts.current !== undefined;
  return (
    <>
      {accounts ? <Picker {...accounts} /> : null}
      {ofAccount ? <a href={`${base}/`}>Overview</a> : null}
      {ofAccount ? <a href={`${base}/queues`}>Queues</a> : null}
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
        <main>
          <Base.Provider value={shell.base ?? ''}>{children}</Base.Provider>
        </main>
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

/** The tone each job state is drawn in: failed red, completed green, waiting and delayed amber, active blue. */
const STATE_TONE: Record<string, string> = {
  failed: 'bad',
  completed: 'ok',
  active: 'busy',
  waiting: 'wait',
  prioritized: 'wait',
  delayed: 'wait',
  'waiting-children': 'wait',
  paused: 'wait',
};

/** A job's state as a coloured badge, its words as `status` and `jobs` say them. */
export function StateBadge({ state, id }: { state: string; id?: string }) {
  return (
    <span id={id} class={`badge ${STATE_TONE[state] ?? 'plain'}`}>
      {state}
    </span>
  );
}

/** A flash message carried in the URL after an action. */
export function Flash({ text }: { text: string | undefined }) {
  return text ? (
    <p class="flash" role="status">
      {text}
    </p>
  ) : null;
}
