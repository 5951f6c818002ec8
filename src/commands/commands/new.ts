import { type CommandDefinition, failure, result, submit } from "../types";

export const newCommand: CommandDefinition = {
    name: "new",
    aliases: ["clear"],
    description:
        "Start a new conversation (clears the transcript and summary; the shell keeps its directory)",
    usage: "/new",
    maxPositional: 0,
    plan(_args, view) {
        // Print mode runs its one prompt in the conversation it started with.
        if (!view.chat) {
            return failure(
                "/new works in the chat; print mode runs its prompt in the conversation it started with (leave out --continue/--resume for a new one)"
            );
        }
        return submit({ type: "new_conversation" }, (outcome) =>
            outcome.isError
                ? failure(outcome.message)
                : result(
                      ["Started a new conversation.", outcome.message].filter(Boolean).join("\n")
                  )
        );
    },
};
