/**
 * Issue 36, part 2, in the editor: a prompt whose first word is an unknown
 * `/name` is answered with a line and never reaches the model; paths are
 * text; aliases run as their commands, and one the editor does its own way
 * (`/clear` = `/new`) is refused as that command is.
 */
import { describe, expect, it } from "vitest";
import type { EngineHostPort, EngineOp } from "../../src/agent/protocol";
import { runSlashCommands } from "../../src/cli/acp/slash-commands";
import type { Skill } from "../../src/project/skills";
import { hostOver } from "../ui/helpers";

const skills: Skill[] = [
    {
        name: "release",
        description: "How to cut a release",
        path: "/repo/.north/skills/release",
        file: "/repo/.north/skills/release/SKILL.md",
        root: "/repo/.north/skills",
        modelInvocable: true,
    },
];

function recordingHost(): EngineHostPort & { ops: EngineOp[] } {
    const ops: EngineOp[] = [];
    const base = hostOver({
        subscribe: () => () => undefined,
        run: () => Promise.reject(new Error("no prompt runs here")),
    });
    return {
        ops,
        subscribe: base.subscribe,
        state: base.state,
        async submit(op) {
            ops.push(op as EngineOp);
            if (op.type === "summarise")
                return { message: "summarised 4 earlier messages" } as never;
            throw new Error(`the fake host takes no ${op.type} op`);
        },
    };
}

describe("the first word of an editor's prompt", () => {
    it("an unknown /name is said, with the closest command, and nothing is left to send", async () => {
        const host = recordingHost();
        const run = await runSlashCommands("/sumarize the log", host, [], skills);
        expect(run.failed).toBe(true);
        expect(run.remainingText).toBe("");
        expect(run.said.join("\n")).toContain(
            "unknown command /sumarize — did you mean /summarize"
        );
        expect(host.ops).toEqual([]);
    });

    it("a path is text and goes to the model as it is", async () => {
        const run = await runSlashCommands("/etc/hosts is missing", recordingHost(), [], skills);
        expect(run).toEqual({ remainingText: "/etc/hosts is missing", said: [], failed: false });
    });

    it("a skill's name is not unknown", async () => {
        const run = await runSlashCommands("/release 2.1", recordingHost(), [], skills);
        expect(run.failed).toBe(false);
        expect(run.remainingText).toContain("release");
    });

    it("/compact runs /summarize; /clear is refused as /new is", async () => {
        const host = recordingHost();
        const compact = await runSlashCommands("/compact", host, [], skills);
        expect(compact.failed).toBe(false);
        expect(host.ops.map((op) => op.type)).toEqual(["summarise"]);
        const clear = await runSlashCommands("/clear", recordingHost(), [], skills);
        expect(clear.failed).toBe(true);
        expect(clear.said.join("\n")).toContain("/clear is not available in the editor");
    });
});
