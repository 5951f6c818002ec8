import { type CommandDefinition, failure, shown, submit } from "../types";

export const learnCommand: CommandDefinition = {
    name: "learn",
    description: "Learn (or relearn) this project and save its profile; /learn stop cancels",
    usage: "/learn [stop]",
    maxPositional: 1,
    plan(args, view) {
        const action = args.positional[0];
        if (action !== undefined && action !== "stop") {
            return failure(`unknown /learn argument "${action}"; use /learn or /learn stop`);
        }
        if (!view.chat)
            return failure("/learn works in the chat (north); print mode runs one prompt");
        return submit({ type: action === "stop" ? "learn_stop" : "learn_start" }, shown);
    },
};
