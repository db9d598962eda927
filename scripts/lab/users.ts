import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { execa } from 'execa';

/**
 * A non-root user for `ssh.sudo` tests. The lab's hosts are mount namespaces
 * of this machine and share its /etc/passwd and /etc/sudoers.d, so the user
 * is made here, once: idempotent, and always named `handoff-lab…` so it can
 * never be someone's account. Its password field is `*` (no password, not
 * locked: sshd without PAM refuses a locked account even with a key); the
 * lab's one authorized_keys file lets it in with the lab's client key.
 * `nopasswd` writes or removes its rule in /etc/sudoers.d: `true` allows it
 * everything, a string is the rule file itself (what `deploy setup
 * --print-sudoers` prints).
 */
export async function ensureLabUser(
  name: `handoff-lab${string}`,
  options: { nopasswd: boolean | string },
): Promise<void> {
  if (!/^handoff-lab[a-z0-9-]*$/.test(name)) throw new Error(`lab user ${name}: not a lab name`);
  const exists = await execa('id', ['-u', name], { reject: false });
  if (exists.exitCode !== 0)
    await execa('useradd', ['--create-home', '--shell', '/bin/sh', '--password', '*', name], {
      timeout: 30_000,
    });
  const rule = `/etc/sudoers.d/${name}`;
  if (!options.nopasswd) {
    await rm(rule, { force: true });
    return;
  }
  if (!existsSync('/usr/bin/sudo')) throw new Error('sudo is not installed: apt-get install sudo');
  const text =
    typeof options.nopasswd === 'string' ? options.nopasswd : `${name} ALL=(root) NOPASSWD: ALL\n`;
  await writeFile(rule, text, { mode: 0o440 });
  const check = await execa('visudo', ['-cf', rule], { reject: false });
  if (check.exitCode !== 0) throw new Error(`${rule}: ${check.stderr || check.stdout}`);
}
