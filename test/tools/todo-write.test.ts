import { describe, expect, it } from "vitest";
import { digestToolOutput, OutputCache } from "../../src/agent/digest";
import { createToolRegistry } from "../../src/tools/registry";
import { createTodoWriteTool, todoItemsOf } from "../../src/tools/todo-write";

const ctx = { repoRoot: "/nonexistent", signal: new AbortController().signal };
const registry = createToolRegistry([createTodoWriteTool()]);

describe("todo_write", () => {
    it("returns the whole list for the front-ends and a short line for the model", async () => {
        const items = [
            { content: "Read the parser", status: "done" },
            { content: "Fix the off-by-one", status: "in_progress" },
            { content: "Run the tests", status: "pending" },
        ];
        const result = await registry.execute("todo_write", { items }, ctx);
        expect(result).toEqual({ ok: true, data: { items } });
        if (!result.ok) return;
        const forModel = digestToolOutput(
            registry.get("todo_write"),
            { items },
            result.data,
            new OutputCache()
        );
        expect(forModel).toEqual({
            ok: "to-do list saved: 3 items, 1/3 done, 1 in progress",
        });
    });

    it("refuses an invalid status with a message naming the allowed ones", async () => {
        const result = await registry.execute(
            "todo_write",
            { items: [{ content: "Ship it", status: "completed" }] },
            ctx
        );
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.code).toBe("invalid_args");
        expect(result.error.message).toContain("items.0.status");
        expect(result.error.message).toMatch(/"pending".*"in_progress".*"done"/);
    });

    it("accepts an empty list (clears it)", async () => {
        const result = await registry.execute("todo_write", { items: [] }, ctx);
        expect(result).toEqual({ ok: true, data: { items: [] } });
    });

    it("reads stored details only when every item has the shape", () => {
        expect(todoItemsOf({ items: [{ content: "a", status: "done" }] })).toEqual([
            { content: "a", status: "done" },
        ]);
        expect(todoItemsOf({ items: [{ content: "a", status: "finished" }] })).toBeUndefined();
        expect(todoItemsOf("nope")).toBeUndefined();
    });
});
