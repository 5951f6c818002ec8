import { describe, expect, it } from "vitest";
import { createBuiltinTools, createToolRegistry } from "../../src/tools/index";
import type { LanguageService } from "../../src/tools/lsp/types";
import type { ShellService } from "../../src/tools/shell-service";

const shell = {} as ShellService;
// Some language server found: the lsp tools are among those sent.
const languages = { hasServers: () => true } as LanguageService;
const registry = createToolRegistry(
    createBuiltinTools({ expandOutput: () => undefined, shell, languages })
);

// A change here changes what every model reads: review the snapshot diff like a prompt change.
describe("tool schemas as sent to the model", () => {
    for (const schema of registry.schemas()) {
        it(`${schema.name} (${JSON.stringify(schema).length} characters)`, () => {
            expect(schema).toMatchSnapshot();
        });
    }
});
