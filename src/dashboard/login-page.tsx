/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { Page, renderPage } from './layout.js';

/**
 * The form posts to the page's own address, so `next` stays in the URL and nothing of the request is written
 * into the page: what a signed-out visitor sees cannot depend on what they sent.
 */
export function LoginPage({ problem }: { problem?: string }) {
  return (
    <Page title="Log in">
      <form class="login" method="post">
        <h1>Log in</h1>
        {problem ? (
          <p class="bad" role="alert">
            {problem}
          </p>
        ) : null}
        <label for="user">User</label>
        <input id="user" name="user" autocomplete="username" required autofocus />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p>
          <button type="submit">Log in</button>
        </p>
      </form>
    </Page>
  );
}

/** The login page as HTML, with the problem to show (a wrong password, too many attempts), if any. */
export const loginPage = (problem?: string): string => renderPage(<LoginPage problem={problem} />);
