/** Types of scripts/backup.mjs for the tests. */
export function objectKeysIn(sqlText: string): { media: string[]; downloads: string[] };
export function backupNames(when: Date): { sql: string; objects: string };
export function objectsList(keys: { media: string[]; downloads: string[] }): string;
