/**
 * Whether a background process is waiting for a secret (a password,
 * passphrase or PIN). Such a prompt is answered by the user in a masked field
 * that goes to the process only: process_send refuses to type plain text into
 * it, and the model is told to ask the user instead.
 *
 * Two signs: the line the program waits on (a tty's cursor line, a pipe's last
 * unfinished line) reads like a secret prompt in any usual spelling or
 * language, and, for a pty on Linux, the terminal no longer echoes (what
 * `read -s`, sudo, ssh and getpass() do before reading). Where echo cannot be
 * read, the prompt's text decides alone.
 */
import { execFile } from "node:child_process";
import { readlink } from "node:fs/promises";

/** The words a secret prompt uses: "password", "passphrase", "PIN", and their translations. */
const SECRET_WORDS = [
    "password",
    "passwd",
    "passphrase",
    "pass phrase",
    "passcode",
    "pin",
    "passwort",
    "kennwort",
    "mot de passe",
    "phrase secrète",
    "phrase de passe",
    "contraseña",
    "clave",
    "senha",
    "palavra-passe",
    "wachtwoord",
    "hasło",
    "heslo",
    "jelszó",
    "lösenord",
    "adgangskode",
    "passord",
    "salasana",
    "parola",
    "пароль",
    "パスワード",
    "密码",
    "密碼",
    "口令",
    "비밀번호",
    "암호",
];

/** A secret word not inside another word ("spin:" is no PIN). */
const SECRET_WORD = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${SECRET_WORDS.join("|")})(?![\\p{L}\\p{N}])`,
    "iu"
);

/** A prompt waits after a colon (ASCII or full-width), with nothing typed after it. */
const ENDS_LIKE_A_PROMPT = /[:：]$/u;

/** Longer lines are output that happens to end with a colon, not a prompt. */
const MAX_PROMPT_CHARS = 300;

/**
 * The prompt (trimmed) when `line` reads like a request for a secret:
 * "Password:", "[sudo] password for ann:", "Enter passphrase for key '…':",
 * "Password for 'https://…':", "PIN:", "Passwort:", "Mot de passe :"…
 */
export function secretPromptText(line: string): string | undefined {
    const prompt = line.trim();
    if (prompt.length === 0 || prompt.length > MAX_PROMPT_CHARS) return undefined;
    if (!ENDS_LIKE_A_PROMPT.test(prompt) || !SECRET_WORD.test(prompt)) return undefined;
    return prompt;
}

/** What a program on pipes waits on: the text after the last newline (empty after a full line). */
export function unfinishedLine(output: string): string {
    return output.slice(output.lastIndexOf("\n") + 1);
}

const STTY_TIMEOUT_MS = 2_000;

/**
 * Whether the terminal of process `pid` (a pty's session leader) echoes what
 * is typed: its stdin's terminal, read with `stty`. Undefined where that
 * cannot be told (not Linux, no stdin terminal, no stty).
 */
export async function terminalEchoes(pid: number): Promise<boolean | undefined> {
    if (process.platform !== "linux") return undefined;
    let device: string;
    try {
        device = await readlink(`/proc/${pid}/fd/0`);
    } catch {
        return undefined;
    }
    if (!/^\/dev\/pts\/\d+$/.test(device)) return undefined;
    const settings = await new Promise<string | undefined>((resolve) => {
        execFile(
            "stty",
            ["-F", device, "-a"],
            { timeout: STTY_TIMEOUT_MS, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
            (error, stdout) => resolve(error ? undefined : stdout)
        );
    });
    const flag = settings && /(?:^|\s)(-?)echo(?=[\s;]|$)/m.exec(settings);
    return flag ? flag[1] === "" : undefined;
}

export interface SecretPromptCheck {
    /** A tty's cursor line, or a pipe's unfinished last line (`unfinishedLine`). */
    line: string;
    tty: boolean;
    /** The pty's session leader, whose terminal's echo is checked. */
    pid?: number;
}

/**
 * The prompt when the process waits for a secret, else undefined: the line
 * reads like a secret prompt and, for a pty whose echo can be read, echo is off.
 */
export async function secretPrompt(check: SecretPromptCheck): Promise<string | undefined> {
    const prompt = secretPromptText(check.line);
    if (prompt === undefined) return undefined;
    if (check.tty && check.pid !== undefined && (await terminalEchoes(check.pid)) === true) {
        return undefined;
    }
    return prompt;
}
