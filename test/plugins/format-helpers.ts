/** A plugin folder written into a temporary directory for the format tests. */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readPlugin, type ReadPluginOptions, type ReadPluginResult } from "../../src/project/plugins/read";
import type { LoadedPlugin } from "../../src/project/plugins/types";

export interface PluginDir {
    /** The temporary folder holding the plugin (and anything "outside" it). */
    parent: string;
    /** The plugin folder (real path). */
    root: string;
    write(path: string, text: string, mode?: number): void;
    read(o?: Partial<ReadPluginOptions>): Promise<ReadPluginResult>;
    /** Reads and expects success. */
    load(o?: Partial<ReadPluginOptions>): Promise<LoadedPlugin>;
    /** Reads and expects failure: the message. */
    fail(o?: Partial<ReadPluginOptions>): Promise<string>;
    remove(): void;
}

export function pluginDir(files: Record<string, string> = {}, name = "demo"): PluginDir {
    const parent = realpathSync(mkdtempSync(join(tmpdir(), "north-plugin-format-")));
    const root = join(parent, name);
    mkdirSync(root);
    const write = (path: string, text: string, mode?: number): void => {
        const file = join(root, path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
        if (mode !== undefined) chmodSync(file, mode);
    };
    for (const [path, text] of Object.entries(files)) write(path, text);
    const read = (o: Partial<ReadPluginOptions> = {}): Promise<ReadPluginResult> =>
        readPlugin({
            root,
            marketplace: "market",
            dataDir: join(parent, "data"),
            projectDir: join(parent, "project"),
            ...o,
        });
    return {
        parent,
        root,
        write,
        read,
        async load(o) {
            const result = await read(o);
            if (!result.ok) throw new Error(`expected the plugin to load: ${result.error}`);
            return result.plugin;
        },
        async fail(o) {
            const result = await read(o);
            if (result.ok) throw new Error("expected the plugin to fail");
            return result.error;
        },
        remove: () => rmSync(parent, { recursive: true, force: true }),
    };
}

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
