import { type InputOf, toolInput } from "./tool-input";
import { type ToolDefinition, toolOk } from "./types";
import { asArgs, plural } from "./display-text";

export const TODO_WRITE_TOOL = "todo_write";

export const TODO_STATUSES = ["pending", "in_progress", "done"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
    content: string;
    status: TodoStatus;
}

/** At most this many items, each at most this long: a checklist, not a document. */
const MAX_ITEMS = 50;
const MAX_CONTENT = 300;

const input = toolInput((z) =>
    z.object({
        items: z
            .array(
                z.object({
                    content: z.string().min(1).max(MAX_CONTENT),
                    status: z.enum(TODO_STATUSES),
                })
            )
            .max(MAX_ITEMS),
    })
);

export interface TodoWriteDetails {
    items: TodoItem[];
}

/** "2/5 done, 1 in progress" for a list. */
export function todoProgress(items: readonly TodoItem[]): string {
    const done = items.filter((i) => i.status === "done").length;
    const active = items.filter((i) => i.status === "in_progress").length;
    return `${done}/${items.length} done${active > 0 ? `, ${active} in progress` : ""}`;
}

/** A stored result's items, when it has the shape (results may come from older logs). */
export function todoItemsOf(details: unknown): TodoItem[] | undefined {
    const items = asArgs(details).items;
    if (!Array.isArray(items)) return undefined;
    const valid = items.filter(
        (item): item is TodoItem =>
            typeof item === "object" &&
            item !== null &&
            typeof (item as TodoItem).content === "string" &&
            TODO_STATUSES.includes((item as TodoItem).status)
    );
    return valid.length === items.length ? valid : undefined;
}

/**
 * `todo_write`: the model's visible checklist. Each call replaces the whole
 * list; the engine announces it (a `todo` event) and the chat pins it.
 */
export function createTodoWriteTool(): ToolDefinition<InputOf<typeof input>, TodoWriteDetails> {
    return {
        name: TODO_WRITE_TOOL,
        description:
            "Replace your visible to-do list (the whole list each call); one item in_progress at a time.",
        input,
        // The limits are checked, but the model needs only the shape.
        inputJsonSchema: {
            type: "object",
            properties: {
                items: {
                    type: "array",
                    items: {
                        type: "object",
                        properties: {
                            content: { type: "string" },
                            status: { enum: [...TODO_STATUSES] },
                        },
                        required: ["content", "status"],
                    },
                },
            },
            required: ["items"],
        },
        approvalPolicy: "none",
        // Changes no file: ask and plan modes may keep a list too.
        readOnly: true,
        async execute({ items }) {
            return toolOk({ items: items.map(({ content, status }) => ({ content, status })) });
        },
        display: {
            title: () => "Updating the to-do list",
            resultSuffix: (details) => {
                const items = todoItemsOf(details);
                return items ? ` - ${todoProgress(items)}` : "";
            },
        },
        // The model wrote the list; echoing it back would only cost context.
        digest: (data) =>
            data.items.length === 0
                ? { ok: "to-do list cleared" }
                : {
                      ok: `to-do list saved: ${plural(data.items.length, "item")}, ${todoProgress(data.items)}`,
                  },
    };
}
