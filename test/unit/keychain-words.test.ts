/**
 * What a credential-store failure is called: the messages @napi-rs/keyring gives on Linux, turned
 * into words a person can act on.
 */
import { describe, expect, it } from 'vitest';
import { storeTrouble } from '../../src/settings/keychain.js';

describe('storeTrouble', () => {
  it.each([
    [
      'DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead',
      'no system keychain is running here',
    ],
    ['DBus error: Failed to connect to socket /nonexistent: No such file or directory', 'no system keychain is running here'],
    ['DBus error: The name org.freedesktop.secrets was not provided by any .service files', 'no system keychain is running here'],
    ["Couldn't access platform storage: Secret Service: no result found", 'the system keychain is locked (or has no default keyring)'],
    ['Secret Service: prompt dismissed', 'the system keychain is locked (or has no default keyring)'],
    ['no answer within 1 s', 'the system keychain did not answer within a second'],
    ['Attribute value too long', 'the system keychain refused it (Attribute value too long)'],
  ])('%s', (reason, words) => {
    expect(storeTrouble(reason)).toBe(words);
  });
});
