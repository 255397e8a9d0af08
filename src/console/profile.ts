import { createContext } from 'preact';
import type { Profile } from './api';

/** The signed-in caller (role, permissions, the server's optional features), for views deep in the tree. */
export const ProfileContext = createContext<Profile | null>(null);
