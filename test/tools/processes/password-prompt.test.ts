import { describe, expect, it } from "vitest";
import {
    secretPrompt,
    secretPromptText,
    unfinishedLine,
} from "../../../src/tools/processes/password-prompt";

describe("a line that asks for a secret", () => {
    it.each([
        "Password:",
        "Password: ",
        "[sudo] password for ann: ",
        "Enter passphrase for key '/home/ann/.ssh/id_ed25519': ",
        "Password for 'https://ann@github.com': ",
        "PIN:",
        "Enter PIN for 'PIV Card Holder pin (PIV_II)': ",
        "Enter pass phrase for server.key:",
        "Password for user postgres: ",
        "Enter password:",
        "ann@host's password: ",
        "Passwort:",
        "[sudo] Passwort für ann: ",
        "Mot de passe : ",
        "Contraseña:",
        "Senha:",
        "Пароль:",
        "パスワード：",
        "密码：",
    ])("%j", (line) => {
        expect(secretPromptText(line)).toBe(line.trim());
    });
});

describe("a line that does not", () => {
    it.each([
        "",
        "Password changed.",
        "password: hunter2",
        "Spinning up: ",
        "Name:",
        "Using passwords from the keychain",
        "$ ",
        ">>> ",
        `${"x".repeat(400)} password:`,
    ])("%j", (line) => {
        expect(secretPromptText(line)).toBeUndefined();
    });
});

describe("a program on pipes", () => {
    it("waits on its unfinished last line", async () => {
        expect(unfinishedLine("Connecting...\nPassword: ")).toBe("Password: ");
        expect(unfinishedLine("Password: ok\n")).toBe("");
        // Pipes have no echo to read: the prompt's words decide.
        expect(await secretPrompt({ line: unfinishedLine("log\nPassword: "), tty: false })).toBe(
            "Password:"
        );
        expect(
            await secretPrompt({ line: unfinishedLine("Password: ok\n"), tty: false })
        ).toBeUndefined();
    });
});
