import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// The repository's own eslint.config.js, on snippets placed at paths under src/ that do not exist.
// The layer rule needs no types, so the typed block is left out to keep each lint fast.
const eslint = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) =>
        ruleId === "north/layers" ||
        ruleId === "no-restricted-imports" ||
        ruleId === "@typescript-eslint/consistent-type-imports",
});

async function lint(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: `src/${file}` });
    return (result?.messages ?? []).map((m) => `${m.ruleId ?? "parse"}: ${m.message}`);
}

describe("layer rules", () => {
    it("forbid tools/ importing a provider, at any depth", async () => {
        for (const [file, spec] of [
            ["tools/x.ts", "../providers/anthropic"],
            ["tools/mcp/x.ts", "../../providers/anthropic"],
            ["tools/mcp/deep/x.ts", "../../../providers/anthropic.js"],
        ] as const) {
            const messages = await lint(file, `import { stream } from "${spec}";\nstream();\n`);
            expect(messages, file).toEqual([
                expect.stringMatching(/^north\/layers: tools\/ must not import providers\//),
            ]);
        }
    });

    it("forbid the engine importing the UI, also lazily and as a type", async () => {
        const value = await lint("agent/x.ts", 'import { App } from "../ui/app";\nApp();\n');
        const lazy = await lint("agent/loop/x.ts", 'await import("../../ui/app");\n');
        const typed = await lint(
            "agent/x.ts",
            'import type { App } from "../ui/app";\nlet a: App;\n'
        );
        const reexport = await lint("agent/x.ts", 'export { App } from "../ui/app";\n');
        for (const messages of [value, lazy, typed, reexport]) {
            expect(messages).toEqual([
                expect.stringMatching(/^north\/layers: agent\/ must not import ui\//),
            ]);
        }
    });

    it("allow tools/ only a type import of providers/types", async () => {
        const typed = await lint(
            "tools/mcp/x.ts",
            'import type { ContentBlock } from "../../providers/types";\nexport let b: ContentBlock;\n'
        );
        expect(typed).toEqual([]);
        const value = await lint(
            "tools/mcp/x.ts",
            'import { EMPTY_USAGE } from "../../providers/types";\nexport const u = EMPTY_USAGE;\n'
        );
        expect(value).toEqual([
            expect.stringMatching(/^north\/layers: tools\/ may only type-import providers\/types/),
        ]);
    });

    it("allow imports down the layers and within a layer", async () => {
        const code = [
            'import { run } from "../../agent/loop";',
            'import type { Mode } from "../../agent/events";',
            'import { atomicWrite } from "../../util/atomic-write";',
            'import { helper } from "../helper";',
            'import { render } from "ink";',
            "export const all = [run, atomicWrite, helper, render];",
            "export let mode: Mode;",
            "",
        ].join("\n");
        expect(await lint("ui/transcript/x.ts", code)).toEqual([]);
        expect(await lint("util/x.ts", 'import { a } from "./y";\nexport const b = a;\n')).toEqual(
            []
        );
    });

    it("keep ink and react inside ui/", async () => {
        const messages = await lint("agent/x.ts", 'import { render } from "ink";\nrender();\n');
        expect(messages).toEqual([
            expect.stringMatching(/^no-restricted-imports: .*Only ui\/ may import ink or react/),
        ]);
    });

    it("name a folder under src/ that is not a layer", async () => {
        const messages = await lint(
            "plugins/x.ts",
            'import { a } from "../util/y";\nexport const b = a;\n'
        );
        expect(messages).toEqual([
            expect.stringMatching(/^north\/layers: src\/plugins\/ is not a layer/),
        ]);
    });
});
