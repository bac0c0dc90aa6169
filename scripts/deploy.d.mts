/** Types of scripts/deploy.mjs for the tests. */
export function resourcesIn(toml: string): {
  name: string;
  d1: { binding?: string; name?: string; id?: string }[];
  kv: { binding?: string; name: string; id?: string }[];
  r2: { binding?: string; name?: string }[];
  queues: string[];
};
export function withId(toml: string, table: string, binding: string, key: string, id: string): string;
export function namesInListing(text: string): string[];
export function createdId(text: string, key: string): string;
export function deployedUrl(text: string): string | null;
export function generatedSecrets(ownerEmail: string): Record<string, string>;
export function varIn(toml: string, name: string): string;
export function withVar(toml: string, name: string, value: string): string;
export function publicOrigin(value: string): string | Error;
