// npm installs byte-identical copies of a package under each dependent; the build
// bundles one of them (src/cli/launch-boundary.ts and ARCHITECTURE.md have the figure).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Every installed copy of package `name` under `nodeModules` (nested layouts too), sorted. */
function installedCopies(nodeModules, name, found = []) {
    if (existsSync(join(nodeModules, name, "package.json"))) found.push(join(nodeModules, name));
    for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
        const packages = entry.name.startsWith("@")
            ? readdirSync(join(nodeModules, entry.name)).map((inner) => join(entry.name, inner))
            : [entry.name];
        for (const pkg of packages) {
            const nested = join(nodeModules, pkg, "node_modules");
            if (existsSync(nested)) installedCopies(nested, name, found);
        }
    }
    return found.sort();
}

/**
 * esbuild plugin: npm installs byte-identical copies of a package under each dependent
 * (four of ansi-styles 6.2.3 for Ink, wrap-ansi, slice-ansi and ansi-tokenize), and esbuild
 * bundles each one, so the UI compiles and runs each at start-up. An import of one of `names`
 * is pointed at the first installed copy (in path order) whose file is identical.
 */
export function identicalCopiesEsbuild(
    names,
    nodeModules = fileURLToPath(new URL("../node_modules", import.meta.url))
) {
    const filter = new RegExp(
        `^(?:${names.map((name) => name.replace(/[-/]/g, "\\$&")).join("|")})$`
    );
    return {
        name: "identical-package-copies",
        setup(build) {
            const copiesOf = new Map();
            build.onResolve({ filter }, async (args) => {
                if (args.pluginData?.northIdentical) return null;
                const resolved = await build.resolve(args.path, {
                    kind: args.kind,
                    resolveDir: args.resolveDir,
                    importer: args.importer,
                    pluginData: { northIdentical: true },
                });
                const inPackage = `${sep}node_modules${sep}${args.path}${sep}`;
                const at = resolved.path?.lastIndexOf(inPackage) ?? -1;
                if (resolved.errors.length > 0 || at === -1) return null;
                const fileInPackage = resolved.path.slice(at + inPackage.length);
                if (!copiesOf.has(args.path)) {
                    copiesOf.set(args.path, installedCopies(nodeModules, args.path));
                }
                const contents = readFileSync(resolved.path, "utf8");
                const first = copiesOf
                    .get(args.path)
                    .map((copy) => join(copy, fileInPackage))
                    .find((file) => existsSync(file) && readFileSync(file, "utf8") === contents);
                return { path: first ?? resolved.path };
            });
        },
    };
}
