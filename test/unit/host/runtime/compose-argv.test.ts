import { describe, expect, it } from 'vitest';
import {
  composePs,
  composePull,
  composeRestart,
  composeStop,
  composeUp,
  composeConfig,
  imageInspect,
} from '../../../../src/host/runtime/compose-argv.js';

const target = {
  command: ['docker', 'compose'],
  root: '/srv/handoff/api',
  release: 'r42',
  project: 'api',
};
const base = [
  'docker',
  'compose',
  '-f',
  '/srv/handoff/api/releases/r42/compose.yml',
  '--env-file',
  '/srv/handoff/api/releases/r42/.env',
  '--project-name',
  'api',
];

describe('docker compose command lines', () => {
  it('pulls the images of one release', () => {
    expect(composePull(target)).toEqual([...base, 'pull']);
  });

  it('starts every service detached', () => {
    expect(composeUp(target)).toEqual([...base, 'up', '-d']);
  });

  it('starts one service detached', () => {
    expect(composeUp(target, 'gateway')).toEqual([...base, 'up', '-d', 'gateway']);
  });

  it('stops every service with the stop timeout in seconds', () => {
    expect(composeStop(target, 150_000)).toEqual([...base, 'stop', '-t', '150']);
  });

  it('stops one service, rounding a partial second up so the grace is never shortened', () => {
    expect(composeStop(target, 1_500, 'gateway')).toEqual([...base, 'stop', '-t', '2', 'gateway']);
  });

  it('restarts one service with the stop timeout', () => {
    expect(composeRestart(target, 30_000, 'publish-worker')).toEqual([
      ...base,
      'restart',
      '-t',
      '30',
      'publish-worker',
    ]);
  });

  it('asks for one service status as JSON', () => {
    expect(composePs(target, 'gateway')).toEqual([...base, 'ps', '--format', 'json', 'gateway']);
  });

  it('asks docker-compose 1.x for its table: it has no --format json', () => {
    const v1 = { ...target, command: ['/usr/bin/docker-compose'] };
    expect(composePs(v1, 'gateway').slice(-2)).toEqual(['ps', 'gateway']);
    expect(composePs(v1)[0]).toBe('/usr/bin/docker-compose');
  });

  it('asks the engine beside the compose command whether an image is there', () => {
    expect(imageInspect(['docker-compose'], 'app:r1')).toEqual([
      'docker',
      'image',
      'inspect',
      '--format',
      '{{.Id}}',
      'app:r1',
    ]);
    expect(imageInspect(['podman-compose'], 'app:r1')[0]).toBe('podman');
  });

  it('reads the resolved compose file through compose config', () => {
    expect(composeConfig(target)).toEqual([...base, 'config']);
  });

  it('keeps a release id with shell characters as one argument', () => {
    const odd = composeUp({ ...target, release: 'r 1;$(id)' });
    expect(odd[3]).toBe('/srv/handoff/api/releases/r 1;$(id)/compose.yml');
    expect(odd).toHaveLength(base.length + 2);
  });
});
