/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import { When } from './layout.js';

/**
 * The records that wait for a product or facility the service lacks, grouped by stream and what they wait for, the
 * oldest first (src/queue/wait/): shown on the account's page while any waits.
 */
export function WaitGroups({ s }: { s: StatusReport }) {
  if (!s.waits.groups.length) return null;
  return (
    <>
      <h2>Waiting for what the service lacks</h2>
      <p class="muted">
        No attempt spent: each goes on by itself once what it waits for exists in the service (or MAPPING_FILE maps its name);
        inventory-sync catalog refresh looks at once.
      </p>
      <table id="wait-groups">
        <tr>
          {['stream', 'waits for', 'records', 'since (UTC)'].map((h) => (
            <th>{h}</th>
          ))}
        </tr>
        {s.waits.groups.map((g) => (
          <tr data-wait={`${g.stream}:${g.waitsFor.type}:${g.waitsFor.name}`}>
            <td>{g.stream}</td>
            <td>
              {g.waitsFor.type} {g.waitsFor.name}
            </td>
            <td class="n">{g.count}</td>
            <td>
              <When iso={g.since} />
            </td>
          </tr>
        ))}
      </table>
      {s.waits.more ? <p class="muted">and {s.waits.more} more groups</p> : null}
    </>
  );
}
