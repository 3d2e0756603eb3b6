import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';

/**
 * Adds a product to the sandbox's account, as a person adds it in the service, keeping all else it holds; answers its
 * productUrl (the sandbox gives it one).
 */
export function addProduct(sandbox: Sandbox, productId: string): string {
  const state = sandbox.admin.state();
  // A dump of state() is the sandbox's data shape (docs/sandbox.md); its orders only have no index signature.
  const data = { ...state, products: [...state.products, { productId, productAssocList: [] }] } as unknown as SandboxData;
  sandbox.admin.reset(data);
  return sandbox.admin.state().products.find((p) => p.productId === productId)!.productUrl;
}
