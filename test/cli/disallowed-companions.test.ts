import { describe, expect, it } from "vitest";
import { withoutTools } from "../../src/cli/script-flags";
import { createToolRegistry } from "../../src/tools/registry";
import { toolInput } from "../../src/tools/tool-input";
import type { AnyToolDefinition } from "../../src/tools/types";
import { toolOk } from "../../src/tools/types";

function tool(name: string, extra: Partial<AnyToolDefinition> = {}): AnyToolDefinition {
    return {
        name,
        description: name,
        input: toolInput((z) => z.object({})),
        approvalPolicy: "none",
        readOnly: false,
        execute: async () => toolOk("ran"),
        ...extra,
    };
}

describe("--disallowed-tools and tools offered beside another", () => {
    const registry = createToolRegistry([
        tool("shell_run", { hookAliases: ["Bash"] }),
        tool("process_read", { offeredWith: "shell_run" }),
        tool("read_file"),
    ]);
    const names = (disallowed: string[]) =>
        withoutTools(registry, disallowed, () => undefined)
            .list()
            .map((t) => t.name);

    it("drops the process tools with shell_run (by either name), and only them", async () => {
        expect(names(["Bash"])).toEqual(["read_file"]);
        expect(names(["shell_run"])).toEqual(["read_file"]);
        expect(names(["process_read"])).toEqual(["shell_run", "read_file"]);
        const refused = await withoutTools(registry, ["Bash"], () => undefined).execute(
            "process_read",
            {},
            { repoRoot: "/", signal: new AbortController().signal }
        );
        expect(refused.ok).toBe(false);
    });
});
