/** What the build reads: the app's folders and the configuration files that shape the bundle. */
export const BUILD_INPUTS: string[];
/** Where each stamp lives: inside the output it describes. */
export const STAMPS: { build: string; migrations: string };
/** The SHA-256 of the given files and folders (paths relative to `base`, then contents, in a stable order). */
export function fingerprint(inputs: string[], base?: string): string;
/** Whether the stamp at `path` holds exactly `value` (false when the stamp or its folder is missing). */
export function stampMatches(path: string, value: string): boolean;
/** Records `value` as the stamp at `path`. */
export function writeStamp(path: string, value: string): void;
