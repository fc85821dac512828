// Imported first by the entry points that run the TypeScript sources directly: they need a Node.js that
// strips types (22.18 or newer; npm scripts run the project's pinned Node 24). On an older one, say so in
// one line instead of Node's ERR_UNKNOWN_FILE_EXTENSION stack trace.
if (!process.features?.typescript) {
  process.stderr.write(
    `${process.argv[1] ?? 'this command'}: Node.js ${process.versions.node} cannot run the TypeScript sources; ` +
      'use Node.js 22.18 or newer, or run it through npm (npm start, npm run …, npx pds), which uses the Node 24 that npm ci installed.\n',
  );
  process.exit(1);
}
