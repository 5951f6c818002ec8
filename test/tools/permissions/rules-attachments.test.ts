import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAttachments } from "../../../src/project/attachments";
import { PermissionRules } from "../../../src/tools/permissions/rules";
import { type TempRepo, makeRepo } from "../fixtures";

let repo: TempRepo;
beforeAll(async () => {
    repo = await makeRepo({ ".env": "API_TOKEN=hunter2\n", "app.ts": "export {};\n" });
});
afterAll(async () => {
    await repo.cleanup();
});

describe("@ attachments under Read deny rules", () => {
    it("leave a denied file out and say which rule did", async () => {
        const rules = new PermissionRules(
            { projectRoot: repo.root, home: "/nonexistent" },
            new Set()
        );
        rules.addSource({ source: "test", permissions: { deny: ["Read(.env)"] } });
        const denied: Array<[string, string]> = [];
        const files = await loadAttachments(repo.root, [".env", "app.ts"], undefined, {
            readDenial: async (p) => rules.readDenial(p),
            onDenied: (path, rule) => denied.push([path, rule]),
        });
        expect(files.map((f) => f.path)).toEqual(["app.ts"]);
        expect(denied).toEqual([[".env", "Read(.env)"]]);
        const open = await loadAttachments(repo.root, [".env"]);
        expect(open[0]!.text).toContain("hunter2");
    });
});
