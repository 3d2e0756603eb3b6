import { SANDBOX_PROFILES, type SandboxProfile } from './sandbox-options.js';

/** What a profile changes, one switch per behaviour (docs/sandbox.md "Profiles", docs/service.md). */
export interface ProfileRules {
  name: SandboxProfile;
  /** A client shipmentId is ignored: every shipment gets the next number (no duplicate on a repeated create). */
  serverShipmentIds: boolean;
  /** First shipment id the sandbox assigns (the real service's are six-digit numbers). */
  firstShipmentId: number;
  /** shipmentId and physicalInventoryId answered as JSON numbers (entity answers and collection rows). */
  numericIds: boolean;
  /** Action URLs only while the action is valid: otherwise `null`, or no field; undefined keeps every URL. */
  invalidActions?: 'null' | 'absent';
  /** Empty side lists (shipmentUrlList, productAssocList, contentList, ...) answered `null`. */
  nullEmptyLists: boolean;
  /** Collection rows carry action URLs and side lists too (with their nulls). */
  richRows: boolean;
  /** Unit of txStamp in status histories. */
  txStampUnit: 's' | 'ms';
  /** Completed orders carry actionUrlEdit, and POST to it makes them editable again. */
  editAction: boolean;
  /** Status of a refused write to a completed or cancelled order. */
  closedOrderStatus: 400 | 403;
}

const SPEC: ProfileRules = {
  name: 'spec',
  serverShipmentIds: false,
  firstShipmentId: 10000,
  numericIds: false,
  nullEmptyLists: false,
  richRows: false,
  txStampUnit: 'ms',
  editAction: false,
  closedOrderStatus: 400,
};

const OBSERVED: ProfileRules = {
  name: 'observed',
  serverShipmentIds: true,
  firstShipmentId: 328966,
  numericIds: true,
  invalidActions: 'null',
  nullEmptyLists: true,
  richRows: true,
  txStampUnit: 's',
  editAction: true,
  closedOrderStatus: 403,
};

/** The rules of a profile; `invalidActions` picks null or absent under `observed`. */
export function profileRules(profile: SandboxProfile, invalidActions: 'null' | 'absent' = 'null'): ProfileRules {
  if (profile === 'spec') return SPEC;
  if (profile === 'observed') return { ...OBSERVED, invalidActions };
  throw new Error(unknownProfile(profile));
}

/** A profile named on a command line or in a setting, or an error that lists the profiles. */
export function parseProfile(value: string): SandboxProfile {
  if ((SANDBOX_PROFILES as readonly string[]).includes(value)) return value as SandboxProfile;
  throw new Error(unknownProfile(value));
}

function unknownProfile(value: string): string {
  return `unknown sandbox profile "${value}": use ${SANDBOX_PROFILES.join(' or ')}`;
}
