/** The scripted turns of the subagents bench, shared by the bench and its out-of-process fake server. */
import type { ScriptedTurn } from "../test/kit/fake-llm-server";

/** Model turns of each child: four reads, then its report. */
export const CHILD_READS = 4;

const isChild = (tag: string) => (body: string) =>
    body.includes("You are a subagent doing one task") && body.includes(tag);

function childTurns(tag: string): ScriptedTurn[] {
    const reads: ScriptedTurn[] = Array.from({ length: CHILD_READS }, () => ({
        when: isChild(tag),
        toolCalls: [{ name: "read_file", input: { path: "src/retry.ts" } }],
    }));
    return [...reads, { when: isChild(tag), text: `report ${tag}` }];
}

const call = (tag: string) => ({
    name: "task",
    input: { description: `look ${tag}`, prompt: `${tag}: read src/retry.ts` },
});

export const SUBAGENT_SCRIPTS = {
    one: (): ScriptedTurn[] => [{ toolCalls: [call("A")] }, ...childTurns("A"), { text: "done" }],
    parallel: (): ScriptedTurn[] => [
        { toolCalls: [call("A"), call("B")] },
        ...childTurns("A"),
        ...childTurns("B"),
        { text: "done" },
    ],
    sequential: (): ScriptedTurn[] => [
        { toolCalls: [call("A")] },
        ...childTurns("A"),
        { toolCalls: [call("B")] },
        ...childTurns("B"),
        { text: "done" },
    ],
};

export type SubagentScript = keyof typeof SUBAGENT_SCRIPTS;

/** Messages between the bench and its fake server process. */
export type ServerRequest =
    { id: number; enqueue: SubagentScript } | { id: number; remaining: true };
export type ServerReply = { ready: string } | { id: number; remaining: number };
