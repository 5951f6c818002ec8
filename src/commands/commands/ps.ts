import { processListing } from "../process-listing";
import { type CommandDefinition, failure, result, shown, submit } from "../types";

/** What the chat says beside its processes view (the keys are in the view). */
const VIEW_OPENED = "Processes: the list is open (Esc closes it)";

export const psCommand: CommandDefinition = {
    name: "ps",
    description: "List background processes, show one's output, stop one",
    usage: "/ps [stop <id>]",
    maxPositional: 2,
    plan(args, view) {
        const [action, id] = args.positional;
        if (action !== undefined) {
            if (action !== "stop" || id === undefined) return failure(`usage: ${psCommand.usage}`);
            return submit({ type: "stop_process", id }, shown);
        }
        // The chat opens its processes view on this op's reply (chat-commands.ts).
        return submit({ type: "processes" }, (processes) =>
            result(
                view.chat && processes.length > 0
                    ? VIEW_OPENED
                    : processListing(processes, Date.now())
            )
        );
    },
};
