/**
 * Which proxy a request goes through, as curl decides it from the environment, and how a proxy is
 * shown (its password masked). A table; no network.
 */
import { describe, expect, it } from 'vitest';
import { bypassesProxy, displayProxy, parseProxy, proxyChoice, withScheme } from '../../src/client/proxy.js';
import { UsageError } from '../../src/errors.js';

describe('a proxy without a scheme, as curl takes it', () => {
  it.each([
    ['127.0.0.1:3128', 'http://127.0.0.1:3128'],
    ['proxy.corp:8080', 'http://proxy.corp:8080'],
    ['user:pw@proxy:1', 'http://user:pw@proxy:1'],
    ['http://p:1', 'http://p:1'],
    ['HTTPS://p:1', 'HTTPS://p:1'],
    ['socks5://p:1', 'socks5://p:1'],
  ])('%s is %s', (given, taken) => {
    expect(withScheme(given)).toBe(taken);
  });

  it('HTTPS_PROXY=127.0.0.1:3128 is chosen for https as http://127.0.0.1:3128, named by its variable', () => {
    expect(proxyChoice('https://api.example.com', { HTTPS_PROXY: '127.0.0.1:3128' })).toEqual({
      url: 'http://127.0.0.1:3128',
      variable: 'HTTPS_PROXY',
    });
    expect(proxyChoice('https://api.example.com', { https_proxy: ' ', HTTPS_PROXY: 'p:1' })).toEqual({
      url: 'http://p:1',
      variable: 'HTTPS_PROXY',
    });
  });

  it('a proxy that cannot be used is a usage error naming the variable, its password masked', () => {
    expect(() => parseProxy({ url: 'http://u:secretpw@[bad', variable: 'HTTPS_PROXY' })).toThrow(UsageError);
    const message = (() => {
      try {
        parseProxy({ url: 'http://u:secretpw@[bad', variable: 'HTTPS_PROXY' });
      } catch (error) {
        return `${(error as Error).message} ${(error as UsageError).hint ?? ''}`;
      }
      return '';
    })();
    expect(message).toMatch(/^HTTPS_PROXY is not a proxy address the tool can use: http:\/\/u:••••@\[bad /);
    expect(message).not.toContain('secretpw');
    expect(() => parseProxy({ url: 'ftp://p:2121', variable: 'HTTP_PROXY' })).toThrow(
      /^HTTP_PROXY names a proxy the tool cannot use: ftp:\/\/p:2121$/,
    );
    expect(parseProxy({ url: 'http://127.0.0.1:3128', variable: 'HTTP_PROXY' }).port).toBe('3128');
  });
});

describe('NO_PROXY as curl reads it', () => {
  it.each([
    ['http://127.0.0.1:8787', '127.0.0.0/8', true],
    ['http://127.9.9.9:8787', '10.0.0.0/8,127.0.0.0/8', true],
    ['http://10.1.2.3', '10.0.0.0/8', true],
    ['http://11.1.2.3', '10.0.0.0/8', false],
    ['http://192.168.1.20', '192.168.1.0/24', true],
    ['http://192.168.2.20', '192.168.1.0/24', false],
    ['http://[::1]:8787', '::1', true],
    ['http://[::1]:8787', '[::1]', true],
    ['http://[::1]:8787', '[::1]:8787', true],
    ['http://[::1]:8787', '[::1]:9999', false],
    ['http://[::1]:8787', '0:0:0:0:0:0:0:1', true],
    ['http://[fd00::5]', 'fd00::/8', true],
    ['http://[fe80::5]', 'fd00::/8', false],
    ['http://[::1]', '127.0.0.0/8', false],
    ['http://127.0.0.1', '::/0', false],
    ['http://localhost:8787', '127.0.0.0/8', false], // a name is not resolved
    ['http://127.0.0.1:8787', '127.0.0.1', true],
    ['http://127.0.0.1:8787', '127.0.0.1:8787', true],
    ['http://127.0.0.1:8787', '127.0.0.1:80', false],
    ['https://api.example.com', '.example.com', true],
    ['https://api.example.com', 'example.com', true],
    ['https://api.example.com', '*.example.com', true],
    ['https://notexample.com', 'example.com', false],
    ['https://api.example.com.', 'api.example.com', true],
    ['https://API.Example.COM', 'api.example.com', true],
    ['https://api.example.com', 'example.com:443', true],
    ['https://api.example.com', 'example.com:8443', false],
    ['https://api.example.com', 'other.org api.example.com', true],
    ['https://api.example.com', '*', true],
    ['https://api.example.com', '', false],
    ['http://10.0.0.1', '10.0.0.0/33', false], // a prefix too long names nothing
    ['http://10.0.0.1', '10.0.0.0/x', false],
  ])('%s with NO_PROXY=%j: direct is %s', (url, noProxy, direct) => {
    expect(bypassesProxy(new URL(url), noProxy)).toBe(direct);
  });

  it('the proxy choice honours it, in either case', () => {
    expect(proxyChoice('http://127.0.0.1:1', { HTTP_PROXY: 'p:1', NO_PROXY: '127.0.0.0/8' })).toBeUndefined();
    expect(proxyChoice('http://[::1]:1', { http_proxy: 'p:1', no_proxy: '::1' })).toBeUndefined();
    expect(proxyChoice('http://[::2]:1', { http_proxy: 'p:1', no_proxy: '::1' })).toEqual({ url: 'http://p:1', variable: 'http_proxy' });
    // An empty lower-case variable is unset, as it is for the proxy variables.
    expect(proxyChoice('http://127.0.0.1:1', { HTTP_PROXY: 'p:1', no_proxy: '', NO_PROXY: '127.0.0.1' })).toBeUndefined();
  });
});

describe('a proxy as shown', () => {
  it.each([
    ['http://me:s3cret@proxy:3128', 'http://me:••••@proxy:3128'],
    ['me:s3cret@127.0.0.1:3128', 'http://me:••••@127.0.0.1:3128'],
    ['http://me@proxy:3128', 'http://••••@proxy:3128'], // a lone user part may be a token
    ['http://proxy:3128/', 'http://proxy:3128'],
    ['http://me:s3cret@[bad', 'http://me:••••@[bad'],
  ])('%s is shown as %s', (proxy, shown) => {
    expect(displayProxy(proxy)).toBe(shown);
  });
});
