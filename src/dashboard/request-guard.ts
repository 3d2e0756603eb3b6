import { isIP } from 'node:net';
import { hostname as machineName } from 'node:os';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Logger } from '../log/logger.js';

export interface RequestGuardOptions {
  /** The address the dashboard listens on. */
  host: string;
  /** The origin users reach it at through a reverse proxy (DASHBOARD_PUBLIC_URL), e.g. https://ops.example.com. */
  publicUrl?: string;
  logger?: Logger;
}

/**
 * What every answer says about itself (helmet): no framing, no sniffing, no referrer off-site, nothing loaded
 * from elsewhere. Scripts and styles come from the dashboard's own /assets; 'unsafe-inline' styles are for
 * bull-board's style attributes (and uPlot's), no script runs inline. HSTS only when users reach it over https.
 */
function securityHeaders(publicUrl: string | undefined) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
    // Not no-referrer: with it, browsers send `Origin: null` on the dashboard's own form posts.
    referrerPolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: publicUrl?.startsWith('https:') ? { maxAge: 180 * 24 * 3600, includeSubDomains: false } : false,
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const wildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]' || host === '';

/**
 * Host names (lower case) a request may carry besides IP literals: localhost, the bound name, the machine's
 * name when bound to every interface, and the public URL's host. A name resolved by someone else's DNS (the
 * DNS-rebinding attack) is none of these.
 */
export function allowedHostnames(o: Pick<RequestGuardOptions, 'host' | 'publicUrl'>): Set<string> {
  const names = new Set(['localhost']);
  if (wildcard(o.host)) names.add(machineName().toLowerCase());
  else names.add(o.host.toLowerCase());
  if (o.publicUrl) names.add(new URL(o.publicUrl).hostname.toLowerCase());
  return names;
}

/** The host name of a Host header (IPv6 in brackets), or undefined when it is not a plain host[:port]. */
function hostnameOf(host: string | undefined): string | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/i.exec(host ?? '');
  return m?.[1]?.toLowerCase();
}

const isIpLiteral = (name: string) => isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0;

/** The dashboard's own origin as a request reached it: the public URL's when set, else http://{Host}. */
export function ownOrigin(req: Request, publicUrl: string | undefined): string {
  return publicUrl ? new URL(publicUrl).origin : `http://${req.headers.host ?? 'localhost'}`;
}

/**
 * First in line for every request: sets the security headers (helmet), serves only the allowed Host names, and refuses
 * a state-changing request (any method but GET, HEAD, OPTIONS) sent by another site. A browser always says so,
 * through Origin or Sec-Fetch-Site; a request with neither comes from a program, not from a page (no CSRF).
 */
export function requestGuard(o: RequestGuardOptions) {
  const names = allowedHostnames(o);
  const publicOrigin = o.publicUrl ? new URL(o.publicUrl).origin : undefined;
  const headers = securityHeaders(o.publicUrl);
  const guard = (req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith('/queues/static/')) res.setHeader('cache-control', 'no-store');
    const name = hostnameOf(req.headers.host);
    if (!name || !(isIpLiteral(name) || names.has(name))) {
      const fix = 'set DASHBOARD_PUBLIC_URL to the URL you open';
      o.logger?.warn({ method: req.method, path: req.path }, `dashboard: refused a request for a host name it does not serve (${fix})`);
      res.status(403).type('text').send(`This dashboard does not answer to that host name. Behind a proxy, ${fix}.\n`);
      return;
    }
    if (!SAFE_METHODS.has(req.method)) {
      const why = foreignSender(req, publicOrigin);
      if (why) {
        o.logger?.warn({ method: req.method, path: req.path, why }, 'dashboard: refused a request sent by another site');
        res.status(403).type('text').send('Refused: the request was sent by another site.\n');
        return;
      }
    }
    next();
  };
  return [headers, guard];
}

/** Why a request comes from another site, or undefined when it comes from the dashboard's own pages or no browser. */
function foreignSender(req: Request, publicOrigin: string | undefined): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.origin?.toLowerCase();
  if (origin === undefined) return undefined;
  const host = (req.headers.host ?? '').toLowerCase();
  // https too: only whoever listens on this host and port (the dashboard, or its TLS proxy) can serve that origin.
  if (origin === `http://${host}` || origin === `https://${host}` || origin === publicOrigin) return undefined;
  return 'Origin is another site';
}
