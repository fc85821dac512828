/**
 * The file name and content type a dropped object is uploaded under. The PDS names gathering entries
 * after the file name and expands archives by it (`.zip`), so the key's last segment is used as is.
 */

const GENERIC_TYPES = new Set(['', 'binary/octet-stream', 'application/octet-stream']);

const BY_EXTENSION: Readonly<Record<string, string>> = Object.freeze({
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.zip': 'application/zip',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
});

/**
 * The last segment of an object key.
 *
 * @example
 * ```ts
 * uploadFileName('incoming/2026/Q1 items.csv'); // 'Q1 items.csv'
 * ```
 */
export function uploadFileName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * The object's own content type, or one guessed from the key's extension when S3 stored none or a
 * generic one (uploads without a type get `binary/octet-stream`).
 *
 * @example
 * ```ts
 * uploadContentType('drops/items.csv', 'binary/octet-stream'); // 'text/csv'
 * uploadContentType('drops/items.csv', 'text/csv; charset=utf-8'); // 'text/csv; charset=utf-8'
 * ```
 */
export function uploadContentType(key: string, stored: string | undefined): string {
  const own = stored?.trim() ?? '';
  if (!GENERIC_TYPES.has(own.toLowerCase())) return own;
  const name = uploadFileName(key).toLowerCase();
  const dot = name.lastIndexOf('.');
  return (dot >= 0 ? BY_EXTENSION[name.slice(dot)] : undefined) ?? 'application/octet-stream';
}
