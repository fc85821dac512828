/**
 * Stack traces of the Lambda bundles, mapped to the TypeScript sources when a stack is formatted.
 *
 * `--enable-source-maps` maps them too, but reads every module's source map while the module loads:
 * about a tenth of each function's cold start (docs/benchmarks.md#cold-start), paid whether or not
 * anything fails. Here a bundle's map is read the first time a stack shows one of its frames. Frames
 * of files without a `.map` next to them (the sources themselves, Node's internals) stay as they are.
 *
 * @example
 * ```ts
 * installSourceMappedStacks();
 * new Error('boom').stack; // "Error: boom\n    at send (/var/task/lib/pds/transport.ts:312:11)…"
 * ```
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface BundleMap {
  map: SourceMap;
  /** The map's own URL: its `sources` are relative to it. */
  url: URL;
}

const bundleMaps = new Map<string, BundleMap | undefined>();

/** Formats stacks with original locations from now on; calling it again changes nothing. */
export function installSourceMappedStacks(): void {
  Error.prepareStackTrace = formatStack;
}

/** V8's own layout ("Name: message", then one "    at …" line per frame), locations mapped. */
function formatStack(error: unknown, frames: readonly NodeJS.CallSite[]): string {
  return [headerOf(error), ...frames.map((frame) => `    at ${formatFrame(frame)}`)].join('\n');
}

function headerOf(error: unknown): string {
  try {
    return error instanceof Error ? Error.prototype.toString.call(error) : String(error);
  } catch {
    return '<error>';
  }
}

/** The frame as V8 prints it, with its bundle location replaced by the original one. */
function formatFrame(frame: NodeJS.CallSite): string {
  const printed = frame.toString();
  const file = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!file || line === null || column === null) return printed;
  const original = originalLocation(file, line, column);
  return original ? printed.replace(`${file}:${line}:${column}`, original) : printed;
}

/** `path:line:column` in the original source, or `undefined` when the bundle has no map there. */
function originalLocation(file: string, line: number, column: number): string | undefined {
  const bundle = bundleMapOf(file);
  if (!bundle) return undefined;
  const origin = bundle.map.findOrigin(line, column);
  if (!('fileName' in origin)) return undefined;
  const source = new URL(origin.fileName, bundle.url);
  const where = source.protocol === 'file:' ? fileURLToPath(source) : source.href;
  return `${where}:${origin.lineNumber}:${origin.columnNumber}`;
}

function bundleMapOf(file: string): BundleMap | undefined {
  if (!bundleMaps.has(file)) bundleMaps.set(file, readBundleMap(file));
  return bundleMaps.get(file);
}

function readBundleMap(file: string): BundleMap | undefined {
  if (!/\.[cm]?js$/.test(file)) return undefined;
  try {
    const url = new URL(`${file.startsWith('file:') ? file : pathToFileURL(file).href}.map`);
    return { map: new SourceMap(JSON.parse(readFileSync(url, 'utf8'))), url };
  } catch {
    // No map next to it (or an unreadable one): the frame keeps its bundle location.
    return undefined;
  }
}
